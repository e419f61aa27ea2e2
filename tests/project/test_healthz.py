import pytest

pytestmark = pytest.mark.worker


def test_healthz_is_green_with_a_worker(client, celery_worker):
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["database"]["ok"] and body["broker"]["ok"] and body["worker"]["ok"]
    assert celery_worker.nodename in body["worker"]["workers"]


def test_healthz_is_red_without_a_worker(client, celery_worker):
    celery_worker.stop()
    try:
        response = client.get("/healthz")
        assert response.status_code == 503
        assert response.json()["worker"]["ok"] is False
        assert response.json()["database"]["ok"] is True
    finally:
        celery_worker.start()

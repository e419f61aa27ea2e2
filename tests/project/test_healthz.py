"""Liveness (/healthz) for orchestrators, readiness/status (/status/) for operators."""

import json
import os
import secrets
import subprocess
import sys
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.utils import timezone

from core.models import WorkerBeat
from core.tasks.worker_beats import worker_beat_record
from generation.models import GenerationRun, RunStatus
from teamllm_web import health
from teamllm_web.celery import app as celery_app
from tests.compose import dotenv
from tests.factories import ConditionFactory, ModelEndpointFactory, ScenarioFactory, StudyFactory, UserFactory
from tests.workers import WorkerProcess, database_url_for_tests, wait_for

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "status-token-for-tests-0123456789"


def dotenv_example() -> dict[str, str]:
    """The documented .env with its required secret filled in, as the README says."""
    return {**dotenv(ROOT / ".env.example"), "SECRET_KEY": secrets.token_urlsafe(50)}


@pytest.fixture
def no_broker_no_worker(monkeypatch):
    """The broker refuses connections and no worker answers an inspect."""

    def refuse(*args, **kwargs):
        raise ConnectionRefusedError("broker down (test)")

    class NoReplies:
        def active_queues(self):
            return None

    monkeypatch.setattr(celery_app, "connection_for_write", refuse)
    monkeypatch.setattr(celery_app.control, "inspect", lambda **kwargs: NoReplies())
    cache.delete(f"health:workers:{django_settings.CELERY_TASK_DEFAULT_QUEUE}")


@pytest.mark.django_db
def test_production_liveness_answers_whatever_the_host_and_without_https_redirect():
    """The compose health check requests http://127.0.0.1:8000/healthz; with the documented
    .env.example (ALLOWED_HOSTS=teamllm.example.org) this was a 400 DisallowedHost (and the
    HTTPS redirect a 301). Real production settings, in a child process."""
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG", "ALLOWED_HOSTS")}
    env.update(dotenv_example())
    env.update(
        DJANGO_SETTINGS_MODULE="teamllm_web.settings.production",
        DATABASE_URL=database_url_for_tests(),
        TEAMLLM_VAR_DIR=str(django_settings.VAR_DIR),
    )
    script = (
        "import django, json; django.setup()\n"
        "from django.test import Client\n"
        "c = Client()\n"
        "out = {}\n"
        "for host in ['127.0.0.1:8000', 'localhost', '[::1]:8000', 'evil.example']:\n"
        "    r = c.get('/healthz', HTTP_HOST=host)\n"
        "    out[host] = [r.status_code, r.content.decode()]\n"
        "r = c.get('/accounts/login/', HTTP_HOST='127.0.0.1:8000')\n"
        "out['other path'] = [r.status_code, '']\n"
        "print(json.dumps(out))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-3000:]
    answers = json.loads(result.stdout.strip().splitlines()[-1])
    for host in ("127.0.0.1:8000", "localhost", "[::1]:8000", "evil.example"):
        assert answers[host] == [200, "ok\n"], (host, answers[host])
    # everything else still refuses a host outside ALLOWED_HOSTS
    assert answers["other path"][0] == 400


@pytest.mark.django_db
def test_liveness_is_200_with_the_broker_down_and_no_worker(client, no_broker_no_worker):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content == b"ok\n"


@pytest.mark.django_db
def test_liveness_answers_head_and_refuses_post(client):
    assert client.head("/healthz").status_code == 200
    assert client.post("/healthz").status_code == 405


@pytest.mark.django_db
def test_liveness_body_reveals_nothing(client, no_broker_no_worker):
    response = client.get("/healthz")
    assert response["Content-Type"].startswith("text/plain")
    assert response.content == b"ok\n"
    assert "no-store" in response["Cache-Control"]
    body = response.content.decode().lower()
    for secret in ("postgres", "sqlite", "redis", "filesystem", "celery", "teamllm", "worker", "queue"):
        assert secret not in body


def test_liveness_is_503_when_the_database_is_down(client, monkeypatch):
    monkeypatch.setattr(health, "liveness", lambda: False)
    monkeypatch.setattr("teamllm_web.middleware.liveness", lambda: False)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.content == b"unavailable\n"


@pytest.mark.django_db
def test_liveness_does_not_inspect_workers(client, monkeypatch):
    def boom(**kwargs):
        raise AssertionError("liveness must not broadcast an inspect")

    monkeypatch.setattr(celery_app.control, "inspect", boom)
    assert client.get("/healthz").status_code == 200


# --- /status/ -----------------------------------------------------------------------


@pytest.mark.django_db
def test_status_is_refused_to_anonymous_and_to_wrong_tokens(client, settings):
    settings.STATUS_TOKEN = TOKEN
    assert client.get("/status/").status_code == 404
    assert client.get("/status/", HTTP_AUTHORIZATION="Bearer wrong").status_code == 404
    assert client.get("/status/", HTTP_AUTHORIZATION=f"Basic {TOKEN}").status_code == 404
    settings.STATUS_TOKEN = ""  # no token configured: an empty bearer never matches
    assert client.get("/status/", HTTP_AUTHORIZATION="Bearer ").status_code == 404


@pytest.mark.django_db
def test_status_is_forbidden_to_raters(client):
    from core.accounts.roles import RATER

    UserFactory(username="rater-s", role=RATER)
    client.login(username="rater-s", password="pw-test-123")
    response = client.get("/status/")
    assert response.status_code == 403
    assert "database" not in response.content.decode()


@pytest.mark.django_db
def test_status_with_the_token_and_no_worker_is_503_and_says_why(client, settings, no_broker_no_worker):
    settings.STATUS_TOKEN = TOKEN
    response = client.get("/status/", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "not ready"
    assert body["database"]["ok"] is True
    assert body["broker"]["ok"] is False and body["workers"]["ok"] is False
    assert set(body["problems"]) >= {"broker", "workers"}
    assert "dispatches" in body and "stuck_runs" in body


@pytest.mark.django_db
def test_status_for_admins_reports_stuck_runs(client, settings, no_broker_no_worker):
    from core.accounts.roles import ADMIN

    UserFactory(username="admin-s", role=ADMIN)
    client.login(username="admin-s", password="pw-test-123")
    old = timezone.now() - timedelta(seconds=settings.GENERATION_STALE_SECONDS + 30)
    common = dict(
        study=StudyFactory(),
        scenario=ScenarioFactory(),
        endpoint=ModelEndpointFactory(),
        condition=ConditionFactory(),
    )
    stuck = GenerationRun.objects.create(status=RunStatus.RUNNING, heartbeat_at=old, **common)
    GenerationRun.objects.create(status=RunStatus.RUNNING, heartbeat_at=timezone.now(), **common)
    GenerationRun.objects.create(status=RunStatus.SUCCEEDED, heartbeat_at=old, **common)
    GenerationRun.objects.create(status=RunStatus.QUEUED, **common)
    body = client.get("/status/").json()
    assert body["stuck_runs"]["stale_heartbeat"] == 1
    assert body["stuck_runs"]["run_ids"] == [stuck.pk]
    assert body["stuck_runs"]["queued"] == 1
    assert "stuck_runs" in body["problems"]
    # the admin navigation links to it
    assert 'href="/status/"' in client.get("/manage/").content.decode()


@pytest.mark.skipif(
    not django_settings.CELERY_BROKER_URL.startswith("redis"), reason="queue depth is measured on Redis"
)
def test_queue_depth_counts_the_messages_waiting_in_the_redis_queue(settings):
    import redis

    queue = f"depth-test-{uuid.uuid4().hex[:8]}"
    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        client.rpush(queue, "a", "b")
        client.rpush(f"{queue}\x06\x163", "c")
        assert health.queue_depth() == {"ok": True, "queue": queue, "messages": 3}
    finally:
        client.delete(queue, f"{queue}\x06\x163")
        client.close()


@pytest.mark.worker
def test_status_is_ready_with_a_worker_and_caches_the_inspect(client, settings, celery_worker, monkeypatch):
    settings.STATUS_TOKEN = TOKEN
    cache.delete(f"health:workers:{settings.CELERY_TASK_DEFAULT_QUEUE}")
    calls = []
    real = health._inspect_workers
    monkeypatch.setattr(health, "_inspect_workers", lambda queue: calls.append(queue) or real(queue))
    first = client.get("/status/", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    body = first.json()
    assert first.status_code == 200, body
    assert body["status"] == "ready" and body["problems"] == []
    assert celery_worker.nodename in body["workers"]["workers"]
    assert body["workers"]["cached"] is False
    if settings.CELERY_BROKER_URL.startswith("redis"):
        assert isinstance(body["queue"]["messages"], int)
    second = client.get("/status/", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").json()
    assert second["workers"]["cached"] is True
    assert second["workers"]["workers"] == body["workers"]["workers"]
    assert len(calls) == 1  # one broadcast for both requests


@pytest.mark.django_db
def test_pending_dispatches_say_plainly_when_there_is_no_outbox(monkeypatch):
    def missing(app_label, model_name):
        raise LookupError(model_name)

    monkeypatch.setattr(health.apps, "get_model", missing)
    assert health.pending_dispatches() == {
        "ok": None,
        "pending": None,
        "note": "no outbox: tasks are sent to the broker on commit",
    }


@pytest.mark.django_db
def test_pending_dispatches_count_the_outbox_rows_not_yet_sent(monkeypatch):
    """Against any model with the outbox's fields (sent_at, created_at, last_error); here
    generation runs stand in for it: heartbeat_at as sent_at, error as last_error."""
    from django.db.models import F

    common = dict(
        study=StudyFactory(),
        scenario=ScenarioFactory(),
        endpoint=ModelEndpointFactory(),
        condition=ConditionFactory(),
    )
    GenerationRun.objects.create(heartbeat_at=timezone.now(), **common)  # "sent"
    GenerationRun.objects.create(error="ConnectionError", **common)  # pending, failed once
    old = GenerationRun.objects.create(**common)  # pending
    GenerationRun.objects.filter(pk=old.pk).update(created_at=F("created_at") - timedelta(seconds=600))

    class Rows:
        def filter(self, sent_at__isnull):
            return GenerationRun.objects.filter(heartbeat_at__isnull=sent_at__isnull).annotate(
                last_error=F("error")
            )

    class Outbox:
        objects = Rows()

    monkeypatch.setattr(health.apps, "get_model", lambda app_label, model_name: Outbox)
    report = health.pending_dispatches()
    assert report["pending"] == 2 and report["with_errors"] == 1
    assert report["oldest_seconds"] >= 600 and report["ok"] is False


@pytest.mark.django_db
def test_status_is_a_page_for_an_admins_browser_and_json_for_monitoring(
    client, settings, no_broker_no_worker
):
    from core.accounts.roles import ADMIN

    settings.STATUS_TOKEN = TOKEN
    UserFactory(username="admin-p", role=ADMIN)
    client.login(username="admin-p", password="pw-test-123")
    browser = {"HTTP_ACCEPT": "text/html,application/xhtml+xml,*/*;q=0.8"}
    page = client.get("/status/", **browser)
    html = page.content.decode()
    assert page.status_code == 503 and page["Content-Type"].startswith("text/html")
    assert 'id="readiness"' in html and "not ready" in html and 'id="status-broker"' in html
    assert 'href="/manage/"' in html and 'href="/status/?format=json"' in html  # a way back, and the JSON
    # the same browser asking for JSON, and monitoring with its token, get JSON
    assert client.get("/status/", {"format": "json"}, **browser).json()["status"] == "not ready"
    client.logout()
    token = client.get("/status/", HTTP_AUTHORIZATION=f"Bearer {TOKEN}", **browser)
    assert token["Content-Type"] == "application/json" and token.json()["broker"]["ok"] is False


class SilentWorker(WorkerProcess):
    """A worker with remote control off, as ``make run`` starts it on the filesystem broker:
    it answers no ping, so it is ready when its first heartbeat is in the database."""

    def _wait_ready(self, timeout: float) -> None:
        wait_for(lambda: WorkerBeat.objects.filter(hostname=self.nodename).exists(), timeout=timeout)


@pytest.mark.worker
def test_without_remote_control_status_counts_the_workers_heartbeats(transactional_db, settings, monkeypatch):
    settings.CELERY_WORKER_ENABLE_REMOTE_CONTROL = False
    settings.WORKER_BEAT_SECONDS = 1

    def no_inspect(**kwargs):
        raise AssertionError("a worker without remote control cannot be inspected")

    monkeypatch.setattr(celery_app.control, "inspect", no_inspect)
    worker = SilentWorker(extra_env={"CELERY_WORKER_REMOTE_CONTROL": "0", "WORKER_BEAT_SECONDS": "1"})
    worker.start()
    try:
        status = health.check_workers()
        assert status["ok"] is True and status["source"] == "heartbeat"
        assert worker.nodename in status["workers"]
        first = WorkerBeat.objects.get(hostname=worker.nodename).beat_at
        wait_for(lambda: WorkerBeat.objects.get(hostname=worker.nodename).beat_at > first, timeout=10)
    finally:
        worker.stop()
    # three beat periods without a beat: the worker is gone
    wait_for(lambda: worker.nodename not in health.check_workers()["workers"], timeout=10)


@pytest.mark.django_db
def test_a_stale_heartbeat_is_no_worker(settings):
    settings.CELERY_WORKER_ENABLE_REMOTE_CONTROL = False
    settings.WORKER_BEAT_SECONDS = 10
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    long_ago = timezone.now() - timedelta(seconds=31)
    WorkerBeat.objects.create(hostname="gone@host", queue=queue, started_at=long_ago, beat_at=long_ago)
    WorkerBeat.objects.create(
        hostname="other@host", queue="another-deployment", started_at=timezone.now(), beat_at=timezone.now()
    )
    assert health.check_workers() == {"ok": False, "workers": [], "queue": queue, "source": "heartbeat"}
    worker_beat_record(hostname="gone@host", queue=queue)
    assert health.check_workers()["workers"] == ["gone@host"]

"""/status/ says its notes and values in the reader's language; its JSON keeps the English."""

import pytest
from django.utils import translation

from teamllm_web import health
from teamllm_web.status_labels import status_value
from tests.factories import UserFactory


def test_every_note_the_report_writes_is_said_in_chinese(settings, monkeypatch):
    settings.CELERY_BROKER_URL = "filesystem://"
    note = health.queue_depth()["note"]  # the report's own text, not a copy of it

    def no_outbox(*args):
        raise LookupError

    monkeypatch.setattr(health.apps, "get_model", no_outbox)
    outbox = health.pending_dispatches()["note"]
    with translation.override("zh-hans"):
        assert status_value(note) == "filesystem 上不测量"
        assert status_value(outbox) == "没有发件箱：任务在提交时发送到消息代理"
        assert status_value(health.NO_BROKER) == "无消息代理"
        assert status_value(health.SOURCE_HEARTBEAT) == "数据库中工作进程的心跳"
        assert (status_value(True), status_value(False)) == ("是", "否")
        assert status_value(12) == 12 and status_value("celery-s42") == "celery-s42"
    with translation.override("en"):
        assert status_value(note) == "not measured on filesystem" and status_value(True) == "yes"


@pytest.mark.django_db
def test_the_status_page_shows_the_notes_in_chinese_and_the_json_keeps_them(client, monkeypatch):
    report = {
        "status": "not ready",
        "problems": ["workers"],
        "database": {"ok": True, "vendor": "postgresql", "latency_ms": 1},
        "broker": {"ok": False, "transport": "redis", "error": "ConnectionError"},
        "workers": {"ok": False, "workers": [], "queue": "celery", "error": health.NO_BROKER},
        "queue": {
            "ok": None,
            "queue": "celery",
            "messages": None,
            "note": health.NOT_MEASURED + "filesystem",
        },
        "dispatches": {"ok": None, "pending": None, "note": health.NO_OUTBOX},
        "stuck_runs": {"ok": True, "stale_heartbeat": 0},
    }
    monkeypatch.setattr("teamllm_web.views.status_report", lambda: (False, report))
    client.force_login(UserFactory(username="admin-status-zh", role="Admin"))
    client.cookies["django_language"] = "zh-hans"
    page = client.get("/status/", headers={"Accept": "text/html"}).content.decode()
    for zh in ["无消息代理", "filesystem 上不测量", "没有发件箱：任务在提交时发送到消息代理", "备注"]:
        assert zh in page, zh
    for en in [health.NO_OUTBOX, "not measured on", "no broker"]:
        assert en not in page, en
    data = client.get("/status/?format=json").json()
    assert data["dispatches"]["note"] == health.NO_OUTBOX and data["workers"]["error"] == "no broker"

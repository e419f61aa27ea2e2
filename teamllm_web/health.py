"""Health of the three parts the product needs: database, broker, worker."""

from __future__ import annotations

from django.conf import settings
from django.db import connection

from teamllm_web.celery import app as celery_app


def check_database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        return {"ok": True, "backend": connection.vendor}
    except Exception as exc:  # noqa: BLE001 - any failure means "down"
        return {"ok": False, "backend": connection.vendor, "error": type(exc).__name__}


def _broker_kind() -> str:
    return settings.CELERY_BROKER_URL.split("://", 1)[0]


def check_broker() -> dict:
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return {"ok": True, "transport": _broker_kind()}
    except Exception as exc:  # noqa: BLE001
        return {"ok": False, "transport": _broker_kind(), "error": type(exc).__name__}


def check_worker(timeout: float = 1.0) -> dict:
    """Up when at least one worker consumes this deployment's queue (a worker of
    another deployment sharing the broker does not count)."""
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    try:
        replies = celery_app.control.inspect(timeout=timeout).active_queues() or {}
    except Exception as exc:  # noqa: BLE001
        return {"ok": False, "workers": [], "queue": queue, "error": type(exc).__name__}
    workers = sorted(
        name for name, queues in replies.items() if any(q.get("name") == queue for q in queues or [])
    )
    return {"ok": bool(workers), "workers": workers, "queue": queue}


def health_report() -> tuple[bool, dict]:
    report = {"database": check_database(), "broker": check_broker()}
    report["worker"] = (
        check_worker() if report["broker"]["ok"] else {"ok": False, "workers": [], "error": "no broker"}
    )
    ok = all(part["ok"] for part in report.values())
    return ok, {"status": "ok" if ok else "degraded", **report}

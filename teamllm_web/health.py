"""Liveness and readiness.

* **Liveness** (``/healthz``, answered by :class:`teamllm_web.middleware.LivenessMiddleware`
  before any other middleware): this process serves requests and its database answers.
  Nothing about the broker or the workers (a worker outage must not make an orchestrator
  restart the web service), and no details in the body.
* **Readiness/status** (``/status/``, admins or ``Authorization: Bearer $STATUS_TOKEN``):
  database, broker, workers consuming this deployment's queue, queue depth, stuck
  generation runs and judge tasks, and dispatches waiting to be sent.
"""

from __future__ import annotations

import contextlib
import time

import redis
from django.apps import apps
from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.utils import timezone

from core.tasks.worker_beats import workers_beating
from generation.models import GenerationRun, RunStatus
from generation.services.recovery import jobs_stuck, jobs_waiting
from teamllm_web.celery import app as celery_app

# Worker replies are cached this long, so polling the status page does not broadcast
# an inspect to every worker on each request; short, so that a killed worker is seen
# gone within seconds (the answer says when it was checked).
WORKERS_CACHE_SECONDS = 3
WORKERS_INSPECT_TIMEOUT = 1.0
BROKER_TIMEOUT = 2.0
# A dispatch still pending after this long means the broker or the sweep is not working.
DISPATCH_STALE_SECONDS = 120
# the report's English texts (the JSON keeps them; status_labels says them on the page)
NOT_MEASURED = "not measured on "  # + the broker's transport
NO_OUTBOX = "no outbox: tasks are sent to the broker on commit"
NO_BROKER = "no broker"
SOURCE_HEARTBEAT = "heartbeat"
# kombu's Redis transport keeps priorities 3, 6 and 9 in lists named queue + sep + priority.
_REDIS_PRIORITY_SEP = "\x06\x16"
_REDIS_PRIORITY_STEPS = (3, 6, 9)


def liveness() -> bool:
    """True when the database answers a trivial query."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        return True
    except Exception:  # noqa: BLE001 - any failure means "not alive"
        return False


def _ms(start: float) -> float:
    return round((time.monotonic() - start) * 1000, 1)


def check_database() -> dict:
    start = time.monotonic()
    ok = liveness()
    return {"ok": ok, "vendor": connection.vendor, "latency_ms": _ms(start)}


def _broker_kind() -> str:
    return settings.CELERY_BROKER_URL.split("://", 1)[0]


def check_broker() -> dict:
    start = time.monotonic()
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=BROKER_TIMEOUT)
        return {"ok": True, "transport": _broker_kind(), "latency_ms": _ms(start)}
    except Exception as exc:  # noqa: BLE001
        return {"ok": False, "transport": _broker_kind(), "error": type(exc).__name__}


def _inspect_workers(queue: str) -> dict:
    try:
        replies = celery_app.control.inspect(timeout=WORKERS_INSPECT_TIMEOUT).active_queues() or {}
    except Exception as exc:  # noqa: BLE001
        return {"ok": False, "workers": [], "error": type(exc).__name__}
    workers = sorted(
        name for name, queues in replies.items() if any(q.get("name") == queue for q in queues or [])
    )
    return {"ok": bool(workers), "workers": workers}


def check_workers() -> dict:
    """Workers consuming this deployment's queue (a worker of another deployment
    sharing the broker does not count). Cached for WORKERS_CACHE_SECONDS. Where workers
    answer no remote control, their heartbeats in the database say it instead."""
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    if not settings.CELERY_WORKER_ENABLE_REMOTE_CONTROL:
        workers = sorted(workers_beating(queue=queue))
        return {"ok": bool(workers), "workers": workers, "queue": queue, "source": SOURCE_HEARTBEAT}
    key = f"health:workers:{queue}"
    try:
        cached = cache.get(key)
    except Exception:  # noqa: BLE001 - the cache is Redis, which may be the part that is down
        cached = None
    if cached is not None:
        return {**cached, "queue": queue, "cached": True}
    result = _inspect_workers(queue)
    result["checked_at"] = timezone.now().isoformat()
    with contextlib.suppress(Exception):  # a cache outage only costs the next call an inspect
        cache.set(key, result, WORKERS_CACHE_SECONDS)
    return {**result, "queue": queue, "cached": False}


def queue_depth() -> dict:
    """Messages waiting in this deployment's queue (Redis broker only: LLEN)."""
    queue = settings.CELERY_TASK_DEFAULT_QUEUE
    url = settings.CELERY_BROKER_URL
    if not url.startswith(("redis://", "rediss://")):
        return {"ok": None, "queue": queue, "messages": None, "note": NOT_MEASURED + _broker_kind()}
    try:
        client = redis.Redis.from_url(
            url, socket_timeout=BROKER_TIMEOUT, socket_connect_timeout=BROKER_TIMEOUT
        )
        try:
            names = [queue, *(f"{queue}{_REDIS_PRIORITY_SEP}{p}" for p in _REDIS_PRIORITY_STEPS)]
            pipe = client.pipeline()
            for name in names:
                pipe.llen(name)
            messages = sum(pipe.execute())
        finally:
            client.close()
    except Exception as exc:  # noqa: BLE001
        return {"ok": False, "queue": queue, "messages": None, "error": type(exc).__name__}
    return {"ok": True, "queue": queue, "messages": messages}


def stuck_runs() -> dict:
    """Generation runs and judge tasks, queued or running, that are stuck: a heartbeat
    older than GENERATION_STALE_SECONDS (their worker died) or none within
    ENGINE_START_SECONDS of being queued (their task was lost). The workers' sweep
    resumes them and records why on each; until then they count here."""
    stuck = jobs_stuck()
    generation = stuck.get("generation", {"stale": [], "unstarted": []})
    judge = stuck.get("judge", {"stale": [], "unstarted": []})
    stale = len(generation["stale"]) + len(judge["stale"])
    unstarted = len(generation["unstarted"]) + len(judge["unstarted"])
    active = GenerationRun.objects.filter(status__in=[RunStatus.QUEUED, RunStatus.RUNNING])
    oldest_queued = (
        active.filter(status=RunStatus.QUEUED)
        .order_by("created_at")
        .values_list("created_at", flat=True)
        .first()
    )
    waiting = jobs_waiting()
    paused = sum(w["paused"] for w in waiting.values())
    return {
        # stalled work is not ready even when every part answers (Redis back empty, its
        # queued tasks lost, runs paused until they try again)
        "ok": not (stale or unstarted or paused),
        "stale_heartbeat": stale,
        "no_first_heartbeat": unstarted,
        # paused by an outage (they resume by themselves); failed while every worker was gone
        # (the first worker back resumes them)
        "paused_by_outage": paused,
        "failed_no_worker": sum(w["no_worker"] for w in waiting.values()),
        "run_ids": (generation["stale"] + generation["unstarted"])[:20],
        "judge_task_ids": (judge["stale"] + judge["unstarted"])[:20],
        "queued": active.filter(status=RunStatus.QUEUED).count(),
        "oldest_queued_seconds": (
            round((timezone.now() - oldest_queued).total_seconds()) if oldest_queued else None
        ),
    }


def pending_dispatches() -> dict:
    """Tasks recorded in the database but not yet taken by the broker: the transactional
    outbox (``core.TaskOutbox``, a row per task, ``sent_at`` empty while pending).

    Looked up by name so that this check works as soon as the outbox model is installed
    and says so plainly before. Not ready-critical: pending rows are sent by the workers'
    sweep once the broker answers; ``ok`` turns false when the oldest has waited longer
    than DISPATCH_STALE_SECONDS."""
    try:
        outbox = apps.get_model("core", "TaskOutbox")
    except LookupError:
        return {"ok": None, "pending": None, "note": NO_OUTBOX}
    pending = outbox.objects.filter(sent_at__isnull=True)
    oldest = pending.order_by("created_at").values_list("created_at", flat=True).first()
    age = round((timezone.now() - oldest).total_seconds()) if oldest else None
    return {
        "ok": age is None or age < DISPATCH_STALE_SECONDS,
        "pending": pending.count(),
        "oldest_seconds": age,
        "with_errors": pending.exclude(last_error="").count(),
    }


def status_report() -> tuple[bool, dict]:
    """Ready when the database and the broker answer, a worker consumes the queue and no run
    is stuck or paused by an outage (the work goes on, not only the parts answer)."""
    report = {"database": check_database(), "broker": check_broker()}
    if report["broker"]["ok"]:
        report["workers"] = check_workers()
        report["queue"] = queue_depth()
    else:
        queue = settings.CELERY_TASK_DEFAULT_QUEUE
        report["workers"] = {"ok": False, "workers": [], "queue": queue, "error": NO_BROKER}
        report["queue"] = {"ok": False, "queue": queue, "messages": None, "error": NO_BROKER}
    if report["database"]["ok"]:
        report["stuck_runs"] = stuck_runs()
        report["dispatches"] = pending_dispatches()
    parts = ("database", "broker", "workers", "stuck_runs") if "stuck_runs" in report else ("database",)
    ready = all(report[part]["ok"] for part in parts)
    warnings = [name for name, part in report.items() if part.get("ok") is False]
    return ready, {"status": "ready" if ready else "not ready", "problems": warnings, **report}

"""Jobs that cannot hang: the LLM batch engine's stuck jobs, found and resumed.

A job (a generation run, a judge task) is stuck when its heartbeat went stale (its
worker died mid-call: no beat for GENERATION_STALE_SECONDS) or when no task took it up
within ENGINE_START_SECONDS of being queued (``dispatched_at``: the message never
reached the broker, the broker lost it, or a worker was killed before it started). A
task still waiting in the outbox is owed to the broker, not lost, and is left to the
outbox sweep. Every worker's periodic thread runs :func:`jobs_recover`; ``/status/``
reports :func:`jobs_stuck` until then.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone

from core.llm import leases
from generation.selectors import jobs_dispatch_pending
from generation.services.engine import ACTIVE, Enqueue, job_resume
from generation.services.kinds import Kind, kinds

logger = logging.getLogger(__name__)


def stale_cutoff(stale_seconds: float | None = None) -> datetime:
    seconds = float(settings.GENERATION_STALE_SECONDS if stale_seconds is None else stale_seconds)
    return timezone.now() - timedelta(seconds=seconds)


def start_cutoff(start_seconds: float | None = None) -> datetime:
    seconds = float(settings.ENGINE_START_SECONDS if start_seconds is None else start_seconds)
    return timezone.now() - timedelta(seconds=seconds)


def stuck_filters(
    *, stale_seconds: float | None = None, start_seconds: float | None = None
) -> tuple[models.Q, models.Q]:
    """Active jobs whose heartbeat went stale, and active jobs no task took up in time."""
    stale = models.Q(status__in=ACTIVE, heartbeat_at__lt=stale_cutoff(stale_seconds))
    started_by = start_cutoff(start_seconds)
    unstarted = models.Q(status__in=ACTIVE, heartbeat_at__isnull=True) & (
        models.Q(dispatched_at__lt=started_by)
        | models.Q(dispatched_at__isnull=True, created_at__lt=started_by)
    )
    return stale, unstarted


def jobs_resume_stale(*, kind: Kind, enqueue: Enqueue, stale_seconds: float | None = None) -> list[int]:
    """Queue again the jobs of ``kind`` whose worker died mid-call: heartbeat stale, lock free."""
    stale, _ = stuck_filters(stale_seconds=stale_seconds)
    resumed = []
    for job_id in list(kind.jobs.filter(stale).values_list("pk", flat=True)):
        if leases.semaphores().holders(kind.lock_key(job_id)):
            continue  # a live task holds it; its keeper will beat soon
        if job_resume(kind=kind, job_id=job_id, enqueue=enqueue, only_if=stale):
            resumed.append(job_id)
    return resumed


def jobs_stuck() -> dict[str, dict[str, list[int]]]:
    """Per kind, the ids of the active jobs that are stuck now, oldest first: ``stale``
    (the heartbeat went stale: the worker died) and ``unstarted`` (no task took the job
    up in time: the task was lost; a task still owed to the broker is not counted)."""
    report = {}
    for kind in kinds():
        stale, unstarted = stuck_filters()
        owed = jobs_dispatch_pending(kind=kind.name)
        report[kind.name] = {
            "stale": list(kind.jobs.filter(stale).order_by("heartbeat_at").values_list("pk", flat=True)),
            "unstarted": [
                pk
                for pk in kind.jobs.filter(unstarted).order_by("dispatched_at").values_list("pk", flat=True)
                if pk not in owed
            ],
        }
    return report


def jobs_recover(
    *, enqueue: Enqueue, stale_seconds: float | None = None, start_seconds: float | None = None
) -> list[tuple[str, int]]:
    """Queue again every stuck job, of every kind: the sweeper's automatic resume.
    A job whose lock a live task holds is left to it; a job whose task waits in the
    outbox is owed to the broker, not lost. Returns the (kind, id) pairs resumed."""
    stale_limit = float(settings.GENERATION_STALE_SECONDS if stale_seconds is None else stale_seconds)
    start_limit = float(settings.ENGINE_START_SECONDS if start_seconds is None else start_seconds)
    resumed = []
    for kind in kinds():
        stale, unstarted = stuck_filters(stale_seconds=stale_seconds, start_seconds=start_seconds)
        owed = jobs_dispatch_pending(kind=kind.name) if kind.jobs.filter(unstarted).exists() else set()
        for reason, condition in (("stale", stale), ("unstarted", unstarted)):
            for job_id in list(kind.jobs.filter(condition).values_list("pk", flat=True)):
                if job_id in owed or leases.semaphores().holders(kind.lock_key(job_id)):
                    continue
                # Recorded in English on the job, like its errors.
                if reason == "stale":
                    note = f"Resumed by the sweeper: no heartbeat for {stale_limit:g} s (its worker died)."
                else:
                    note = (
                        f"Resumed by the sweeper: no worker took it up within {start_limit:g} s "
                        "of being queued (its task was lost)."
                    )
                if job_resume(kind=kind, job_id=job_id, enqueue=enqueue, only_if=condition, note=note):
                    logger.warning("resumed %s job %s: %s", kind.name, job_id, note)
                    resumed.append((kind.name, job_id))
    return resumed

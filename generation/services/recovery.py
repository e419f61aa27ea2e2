"""Jobs that cannot hang: the LLM batch engine's stuck jobs, found and resumed.

A job (a generation run, a judge task) is stuck when its heartbeat went stale (its
worker died mid-call: no beat for GENERATION_STALE_SECONDS) or when no task took it up
within ENGINE_START_SECONDS of being queued (``dispatched_at``: the message never
reached the broker, the broker lost it, or a worker was killed before it started). A
task still waiting in the outbox is owed to the broker, not lost, and is left to the
outbox sweep. Every worker's periodic thread runs :func:`jobs_recover`; ``/status/``
reports :func:`jobs_stuck` until then.

With every worker gone nobody sweeps: a stuck job then has a deadline
(``ENGINE_ORPHAN_SECONDS`` after its last sign of life), which the batch page shows; past
it the web processes' periodic thread fails it with the reason (:func:`jobs_fail_orphaned`),
and the first worker back resumes it (:func:`jobs_recover`), as a person's *Retry* does.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import models
from django.utils import timezone

from core.llm import leases
from core.tasks.worker_beats import workers_beating
from generation.models import RunStatus
from generation.selectors import job_orphan_deadline, jobs_dispatch_pending, stuck_filters
from generation.services.engine import ACTIVE, Enqueue, job_fail, job_resume
from generation.services.kinds import Kind, kinds

logger = logging.getLogger(__name__)


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
    return resumed + jobs_resume_orphaned(enqueue=enqueue)


# ``waiting_for`` of a job failed because every worker was gone: a worker's return resumes it.
NO_WORKER = "no worker"


def jobs_fail_orphaned(*, queue: str) -> list[tuple[str, int]]:
    """Fail the stuck jobs whose deadline passed while no worker of ``queue`` beats (a
    worker's sweep resumes stuck jobs; with none, they would say "running" forever).
    Run by every web process's periodic thread; safe to run concurrently."""
    if workers_beating(queue=queue):
        return []
    now = timezone.now()
    seconds = float(settings.ENGINE_ORPHAN_SECONDS)
    failed = []
    for kind in kinds():
        stale, unstarted = stuck_filters()
        for job in list(kind.jobs.filter(stale | unstarted)):
            if job_orphan_deadline(job) > now:
                continue
            error = (
                f"No worker worked on it for {seconds:g} s: every worker is gone. It resumes by "
                "itself when a worker is back, or with Retry."
            )
            if job_fail(
                kind=kind, job_id=job.pk, error=error, waiting_for=NO_WORKER, only_if=stale | unstarted
            ):
                failed.append((kind.name, job.pk))
    return failed


def jobs_resume_orphaned(*, enqueue: Enqueue) -> list[tuple[str, int]]:
    """Resume the jobs failed while every worker was gone (run by a worker: one is back)."""
    resumed = []
    note = "Resumed by a worker that came back (every worker had been gone)."
    for kind in kinds():
        orphaned = models.Q(status=RunStatus.FAILED, waiting_for=NO_WORKER)
        for job_id in list(kind.jobs.filter(orphaned).values_list("pk", flat=True)):
            if job_resume(kind=kind, job_id=job_id, enqueue=enqueue, only_if=orphaned, note=note, retry=True):
                resumed.append((kind.name, job_id))
    return resumed


def jobs_waiting() -> dict[str, dict[str, int]]:
    """Per kind, how many jobs wait for infrastructure: ``paused`` (active, an outage of Redis
    or the broker stopped them) and ``no_worker`` (failed while every worker was gone; the
    first worker back resumes them)."""
    return {
        kind.name: {
            "paused": kind.jobs.filter(status__in=ACTIVE).exclude(waiting_for="").count(),
            "no_worker": kind.jobs.filter(status=RunStatus.FAILED, waiting_for=NO_WORKER).count(),
        }
        for kind in kinds()
    }

"""The LLM batch engine's one Celery task, for every kind of job (generation runs,
judge tasks), and the wiring of the processes that run it.

Imports go one way: tasks import services, services never import tasks. A service
that enqueues takes an ``enqueue`` callable, :func:`run_advance_send`, from its
caller (a task here, a view or a command); the lease keeper gets its heartbeat
callback from this module, and every worker's periodic thread the engine's sweep.
"""

from __future__ import annotations

import logging

from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings
from django.db import close_old_connections

from core.llm import leases
from core.tasks.periodic import periodic
from generation.services.engine import ENGINE_TASK, GENERATION, TRANSIENT_DB_ERRORS, job_step, task_enqueue
from generation.services.kinds import jobs_heartbeat, kind_get
from generation.services.recovery import jobs_recover

logger = logging.getLogger(__name__)

# The engine's ``enqueue``: records ``run_advance`` in the task outbox with the caller's
# transaction, sent after its commit; if the broker is away, a worker's sweep sends it later.
run_advance_send = task_enqueue


@shared_task(
    name=ENGINE_TASK,
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    autoretry_for=TRANSIENT_DB_ERRORS,
    retry_backoff=1,
    retry_backoff_max=30,
    max_retries=8,
)
def run_advance(run_id: int, seq: int | None, kind: str = GENERATION) -> str:
    """Make call ``seq`` of a job (a generation run, a judge task) and enqueue the next
    one. Idempotent: a duplicate or outdated message finds the call done (or the job
    ended) and stops."""
    # Connections are reused across tasks (CELERY_DB_REUSE_MAX): drop a broken or
    # expired one before this task uses it.
    close_old_connections()
    job_kind = kind_get(kind)
    if run_advance.app.conf.task_always_eager:
        # In-process debugging: no broker to chain through, so loop here.
        outcome = job_step(kind=job_kind, job_id=run_id, seq=seq)
        while outcome.kind in ("advanced", "waiting"):
            outcome = job_step(kind=job_kind, job_id=run_id, seq=outcome.next_seq)
        return outcome.kind
    return job_step(kind=job_kind, job_id=run_id, seq=seq, enqueue=run_advance_send).kind


def runs_resume_dead() -> None:
    """Queue again the jobs of every kind that are stuck: a stale heartbeat (their
    worker died) or no first heartbeat in time (their task was lost)."""
    resumed = jobs_recover(enqueue=run_advance_send)
    if resumed:
        logger.warning("resumed %d stuck job(s): %s", len(resumed), resumed)


# Every process that runs tasks imports this module (a worker at start, before its
# pool; an eager in-process run to call run_advance), so wiring the heartbeat here
# covers them all, whatever the pool.
leases.keeper().on_heartbeat(heartbeat=jobs_heartbeat)


@worker_ready.connect
def _sweep_dead_runs_in_this_worker(**kwargs) -> None:
    """Every worker resumes stuck jobs: at once, then every half stale period."""
    periodic().every(float(settings.GENERATION_STALE_SECONDS) / 2, name="engine sweep", run=runs_resume_dead)

"""Celery tasks of the generation app: thin wrappers that take ids and call a service,
and the wiring of the processes that run them.

Imports go one way: tasks import services, services never import tasks. A service
that enqueues takes an ``enqueue`` callable, :func:`run_advance_send`, from its
caller (a task here, a view or a command), and the lease keeper gets its heartbeat
and sweep callbacks from this module.
"""

from __future__ import annotations

import logging

from celery import shared_task
from celery.signals import worker_ready
from django.db import close_old_connections

from core.llm import leases
from core.tasks.outbox import task_send_on_commit
from generation.selectors import RUN_TASK
from generation.services.runs import TRANSIENT_DB_ERRORS, run_step, runs_heartbeat, runs_resume_stale

logger = logging.getLogger(__name__)


@shared_task(
    name=RUN_TASK,
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    autoretry_for=TRANSIENT_DB_ERRORS,
    retry_backoff=1,
    retry_backoff_max=30,
    max_retries=8,
)
def run_advance(run_id: int, seq: int) -> str:
    """Make call ``seq`` of a generation run and enqueue the next one. Idempotent:
    a duplicate or outdated message finds the call done (or the run ended) and stops."""
    # Connections are reused across tasks (CELERY_DB_REUSE_MAX): drop a broken or
    # expired one before this task uses it.
    close_old_connections()
    if run_advance.app.conf.task_always_eager:
        # In-process debugging: no broker to chain through, so loop here.
        outcome = run_step(run_id=run_id, seq=seq)
        while outcome.kind in ("advanced", "waiting"):
            assert outcome.next_seq is not None  # advanced and waiting always name the next call
            outcome = run_step(run_id=run_id, seq=outcome.next_seq)
        return outcome.kind
    return run_step(run_id=run_id, seq=seq, enqueue=run_advance_send).kind


def run_advance_send(*, run_id: int, seq: int, countdown: float | None = None) -> None:
    """Enqueue the task of call ``seq`` of a run: the ``enqueue`` the run services take.
    It is recorded in the task outbox with the caller's transaction and sent after its
    commit; if the broker is away, a worker's outbox sweep sends it later."""
    task_send_on_commit(name=run_advance.name, args=(run_id, seq), countdown=countdown)


def runs_resume_dead() -> None:
    """Re-enqueue the runs whose worker died (the keeper's sweep in workers)."""
    resumed = runs_resume_stale(enqueue=run_advance_send)
    if resumed:
        logger.warning("resumed %d run(s) whose worker died: %s", len(resumed), resumed)


# Every process that runs tasks imports this module (a worker at start, before its
# pool; an eager in-process run to call run_advance), so wiring the heartbeat here
# covers them all, whatever the pool.
leases.keeper().on_heartbeat(heartbeat=runs_heartbeat)


@worker_ready.connect
def _sweep_dead_runs_in_this_worker(**kwargs) -> None:
    """Every worker resumes runs whose worker died: once now, then periodically."""
    try:
        runs_resume_dead()
    except Exception:
        logger.exception("could not sweep dead generation runs at worker start")
    leases.keeper().start_sweeping(sweep=runs_resume_dead)

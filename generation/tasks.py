"""Celery tasks of the generation app: thin wrappers that take ids and call a service."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.signals import worker_ready
from django.db import close_old_connections

from generation.services.runs import TRANSIENT_DB_ERRORS

logger = logging.getLogger(__name__)


@shared_task(
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
    from generation.services.runs import run_step

    # Connections are reused across tasks (CELERY_DB_REUSE_MAX): drop a broken or
    # expired one before this task uses it.
    close_old_connections()
    if run_advance.app.conf.task_always_eager:
        # In-process debugging: no broker to chain through, so loop here.
        outcome = run_step(run_id=run_id, seq=seq, chain=False)
        while outcome.kind in ("advanced", "waiting"):
            outcome = run_step(run_id=run_id, seq=outcome.next_seq, chain=False)
        return outcome.kind
    return run_step(run_id=run_id, seq=seq).kind


@worker_ready.connect
def _sweep_dead_runs_in_this_worker(**kwargs) -> None:
    """Every worker resumes runs whose worker died: once now, then periodically."""
    from generation import leases
    from generation.services.runs import runs_resume_stale

    try:
        resumed = runs_resume_stale()
        if resumed:
            logger.warning("resumed %d run(s) whose worker died: %s", len(resumed), resumed)
    except Exception:
        logger.exception("could not sweep dead generation runs at worker start")
    leases.keeper().start_sweeping()

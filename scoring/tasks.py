"""Celery tasks of the scoring app: thin wrappers that take ids and call a service."""

from __future__ import annotations

from celery import shared_task


@shared_task(acks_late=True, reject_on_worker_lost=True)
def response_scores_changed(response_id: int) -> None:
    """A sheet of this response was submitted or reopened: recompute agreement,
    calibration routing and the final score. Idempotent: it only derives state."""
    from scoring.services.calibration import response_scores_recompute

    response_scores_recompute(response_id=response_id)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def export_job_run_task(job_id: int) -> None:
    """Build an export file (results workbook or offline workbooks). Idempotent: a done
    job is skipped, a redelivered one rebuilds the same path."""
    from scoring.services.exports import export_job_run

    export_job_run(job_id=job_id)

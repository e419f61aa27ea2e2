"""Celery tasks of research output: thin wrappers that take ids and call a service."""

from __future__ import annotations

from celery import shared_task

from research.services.exports import EXPORT_TASK, export_job_run


@shared_task(name=EXPORT_TASK, acks_late=True, reject_on_worker_lost=True)
def export_job_run_task(job_id: int) -> None:
    """Build an export file (results workbook or offline workbooks). Idempotent: a done
    job is skipped, a redelivered one rebuilds the same path."""
    export_job_run(job_id=job_id)

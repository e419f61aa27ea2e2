"""Celery tasks of research output: thin wrappers that take ids and call a service,
the periodic cleanup of expired exports in every worker, and the libraries loaded at its start."""

from __future__ import annotations

from celery import shared_task
from celery.signals import worker_init, worker_ready
from django.conf import settings
from django.db import InterfaceError, OperationalError

from core.tasks.periodic import periodic
from research.services.diversity import DIVERSITY_TASK, response_diversity_compute
from research.services.exports import EXPORT_TASK, export_job_run, exports_expired_delete

CLEANUP_EVERY_SECONDS = 3600


@shared_task(name=EXPORT_TASK, acks_late=True, reject_on_worker_lost=True)
def export_job_run_task(job_id: int) -> None:
    """Build an export file (results workbook or offline workbooks). Idempotent: a done
    job is skipped, a redelivered one rebuilds its file, a deleted one is ignored."""
    export_job_run(job_id=job_id)


@shared_task(
    name=DIVERSITY_TASK,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError),  # a lost connection: computed on a retry
    retry_backoff=1,
    retry_backoff_max=30,
    max_retries=8,
)
def response_diversity_compute_task(response_id: int) -> None:
    """A response arrived or its Step-1/Step-3 text changed: store its diversity. Idempotent:
    a row already computed from the current texts is left alone, a deleted response ignored."""
    response_diversity_compute(response_id=response_id)


@shared_task(acks_late=True)
def exports_cleanup_task() -> int:
    """Delete the exports older than ``EXPORT_RETENTION_DAYS`` and their files."""
    return exports_expired_delete()


@worker_ready.connect
def _clean_up_exports_in_this_worker(**kwargs) -> None:
    """Every worker deletes expired exports: at start, then hourly."""
    periodic().every(CLEANUP_EVERY_SECONDS, name="exports cleanup", run=exports_expired_delete)


@worker_init.connect
def _load_the_libraries_of_exports(**kwargs) -> None:
    """A worker loads the statistics and spreadsheet libraries once, before its pool starts (the
    children share them): its first export or recompute does not pay 2-3 s of imports
    (``WORKER_LOADS_LIBRARIES``). Web processes never load them."""
    if settings.WORKER_LOADS_LIBRARIES:
        libraries_load()


def libraries_load() -> None:
    import pandas  # noqa: F401
    import pingouin  # noqa: F401
    import scipy.stats  # noqa: F401
    import xlsxwriter  # noqa: F401

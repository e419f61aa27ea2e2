"""Celery tasks of agreement and calibration: thin wrappers that take ids and call a service."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from calibration.services.calibration import response_scores_recompute


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    # A lost connection or a deadlock is retried: the recompute must not be lost. (The
    # scenario lock no longer blocks a response being created in the scenario; see
    # calibration.services.calibration._lock_scenarios.)
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=1,
    retry_backoff_max=30,
    max_retries=8,
)
def response_scores_changed(response_id: int) -> None:
    """A sheet of this response was submitted or reopened: recompute agreement,
    calibration routing and the final score. Idempotent: it only derives state."""
    response_scores_recompute(response_id=response_id)

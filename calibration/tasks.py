"""Celery tasks of agreement and calibration: thin wrappers that take ids and call a service."""

from __future__ import annotations

from celery import shared_task

from calibration.services.calibration import response_scores_recompute


@shared_task(acks_late=True, reject_on_worker_lost=True)
def response_scores_changed(response_id: int) -> None:
    """A sheet of this response was submitted or reopened: recompute agreement,
    calibration routing and the final score. Idempotent: it only derives state."""
    response_scores_recompute(response_id=response_id)

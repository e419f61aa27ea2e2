"""Celery tasks of the judging app: thin wrappers that take ids and call a service,
and the workers' sweep that resumes judge tasks whose worker died."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings
from django.db import close_old_connections

from core.tasks.periodic import periodic
from generation.services.runs import TRANSIENT_DB_ERRORS
from judging.services.runs import JUDGE_TASK, judge_task_run, judge_tasks_resume_stale

logger = logging.getLogger(__name__)


@shared_task(
    name=JUDGE_TASK,
    acks_late=True,
    reject_on_worker_lost=True,
    ignore_result=True,
    autoretry_for=TRANSIENT_DB_ERRORS,
    retry_backoff=1,
    retry_backoff_max=30,
    max_retries=8,
)
def task_run(task_id: int) -> str:
    """Score one response with the batch's judge. Idempotent: finished calls are
    replayed, an ended task does nothing, a task another worker holds is left to it."""
    close_old_connections()
    return judge_task_run(task_id=task_id)


def judge_tasks_resume_dead() -> None:
    resumed = judge_tasks_resume_stale()
    if resumed:
        logger.warning("resumed %d judge task(s) whose worker died: %s", len(resumed), resumed)


@worker_ready.connect
def _sweep_dead_judge_tasks_in_this_worker(**kwargs) -> None:
    """Every worker resumes judge tasks whose worker died: at once, then every half stale period."""
    periodic().every(
        float(settings.GENERATION_STALE_SECONDS) / 2, name="judge task sweep", run=judge_tasks_resume_dead
    )

"""Worker wiring of the core (every worker sweeps the task outbox and writes its heartbeat) and
the studies' own task: a response import too large for the request."""

from __future__ import annotations

import functools
import logging
import socket

from celery import shared_task
from celery.signals import worker_ready
from django.conf import settings
from django.utils import timezone

from core.tasks.outbox import outbox_sweep
from core.tasks.periodic import periodic
from core.tasks.worker_beats import worker_beat_record
from studies.services.import_jobs import response_import_job_run

logger = logging.getLogger(__name__)


@worker_ready.connect
def _sweep_the_outbox_in_this_worker(**kwargs) -> None:
    """Send the tasks still waiting in the outbox (the broker was away when they were
    committed): at once, then every ``OUTBOX_SWEEP_SECONDS``."""
    periodic().every(float(settings.OUTBOX_SWEEP_SECONDS), name="outbox sweep", run=outbox_sweep)


@worker_ready.connect
def _beat_from_this_worker(sender=None, **kwargs) -> None:
    """Write this worker's heartbeat every ``WORKER_BEAT_SECONDS`` (``/status/`` reads it
    where workers cannot be asked)."""
    beat = functools.partial(
        worker_beat_record,
        hostname=getattr(sender, "hostname", None) or socket.gethostname(),
        queue=settings.CELERY_TASK_DEFAULT_QUEUE,
        started_at=timezone.now(),
    )
    periodic().every(float(settings.WORKER_BEAT_SECONDS), name="worker beat", run=beat)


@shared_task(name="studies.tasks.response_import_job_run_task", acks_late=True, reject_on_worker_lost=True)
def response_import_job_run_task(job_id: int) -> None:
    """A response file too large to import in the request (``studies.services.import_jobs``)."""
    response_import_job_run(job_id=job_id)

"""Worker wiring of the core: every worker sweeps the task outbox periodically."""

from __future__ import annotations

import logging

from celery.signals import worker_ready
from django.conf import settings

from core.tasks.outbox import outbox_sweep
from core.tasks.periodic import periodic

logger = logging.getLogger(__name__)


@worker_ready.connect
def _sweep_the_outbox_in_this_worker(**kwargs) -> None:
    """Send the tasks still waiting in the outbox (the broker was away when they were
    committed): at once, then every ``OUTBOX_SWEEP_SECONDS``."""
    periodic().every(float(settings.OUTBOX_SWEEP_SECONDS), name="outbox sweep", run=outbox_sweep)

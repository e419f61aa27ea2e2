"""The training app's periodic work: serve the test-retest probes that are due."""

from __future__ import annotations

from celery import shared_task
from celery.signals import worker_ready

from core.tasks.periodic import periodic
from training.services.retest import retest_probes_serve_all

RETEST_EVERY_SECONDS = 3600.0


@shared_task(acks_late=True)
def retest_probes_serve_task() -> int:
    """Serve every study's due probes (idempotent: a second run serves none)."""
    return retest_probes_serve_all()


@worker_ready.connect
def _serve_probes_in_this_worker(**kwargs) -> None:
    """Every worker serves due probes hourly (the study's settings row is locked while it does)."""
    periodic().every(RETEST_EVERY_SECONDS, name="retest probes", run=retest_probes_serve_all)

"""Workers' heartbeats in the database (infrastructure).

Where workers answer remote control, ``/status/`` asks them (``celery inspect``). On the
filesystem broker ``make run`` turns remote control off (its concurrent control messages
race), so each worker writes a heartbeat row from its periodic thread instead and
``/status/`` counts the workers whose beat is fresh.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from core.models import WorkerBeat

# A worker is alive while its last beat is younger than this many beat periods.
FRESH_PERIODS = 3
# Beats of workers gone for this long are deleted (a restarted worker has a new hostname).
FORGET_AFTER = timedelta(days=1)


def worker_beat_record(*, hostname: str, queue: str, started_at: datetime | None = None) -> None:
    now = timezone.now()
    WorkerBeat.objects.update_or_create(
        hostname=hostname,
        defaults={"queue": queue, "beat_at": now},
        create_defaults={"queue": queue, "beat_at": now, "started_at": started_at or now},
    )
    WorkerBeat.objects.filter(beat_at__lt=now - FORGET_AFTER).delete()


def workers_beating(*, queue: str, now: datetime | None = None) -> list[str]:
    """Hostnames of the workers of ``queue`` whose heartbeat is fresh."""
    now = now or timezone.now()
    fresh = now - timedelta(seconds=FRESH_PERIODS * float(settings.WORKER_BEAT_SECONDS))
    return list(WorkerBeat.objects.filter(queue=queue, beat_at__gte=fresh).values_list("hostname", flat=True))

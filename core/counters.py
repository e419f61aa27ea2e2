"""Durable event counters (infrastructure): what happens in any process, counted in the
database so that the web's metrics endpoint sees the workers' events too."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from core.models import EventCounter


def event_counter_add(*, name: str, amount: int = 1) -> None:
    """Add ``amount`` to the counter ``name`` (created at zero when first counted). Safe
    under concurrency: one UPDATE, or an INSERT that a racing process may win first."""
    now = timezone.now()
    if EventCounter.objects.filter(name=name).update(value=F("value") + amount, updated_at=now):
        return
    try:
        with transaction.atomic():
            EventCounter.objects.create(name=name, value=amount)
    except IntegrityError:  # another process created it meanwhile
        EventCounter.objects.filter(name=name).update(value=F("value") + amount, updated_at=now)


def event_counters_get() -> dict[str, int]:
    """Every counter's current value, by name."""
    return dict(EventCounter.objects.values_list("name", "value"))

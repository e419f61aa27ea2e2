"""Calibration's figures for the metrics endpoint (read at scrape time)."""

from __future__ import annotations

from core.counters import event_counters_get

# The durable counter of agreement recomputes (``core.EventCounter``), one per recompute
# committed, whoever ran it (a worker after a submit, an admin's "recompute").
AGREEMENT_RECOMPUTES = "calibration.agreement_recomputes"


def agreement_recomputes_total() -> int:
    return event_counters_get().get(AGREEMENT_RECOMPUTES, 0)

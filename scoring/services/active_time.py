"""Active scoring time: what the page measured (focus and input, idle pauses left out)
is added to the sheet. Kept apart from the autosave path: a lost report only loses
a minute of timing, never a score."""

from __future__ import annotations

from django.db.models import F

from scoring.models import ScoreSheet, SheetStatus

# the page reports about once a minute; more than this in one report is not believable
ACTIVE_REPORT_MAX = 900


def sheet_active_time_add(*, sheet_id: int, seconds: int) -> bool:
    """Add ``seconds`` (1..ACTIVE_REPORT_MAX) to a draft's active time; False for a
    submitted sheet (its time is final) or a value out of range."""
    if not 1 <= seconds <= ACTIVE_REPORT_MAX:
        return False
    updated = ScoreSheet.objects.filter(pk=sheet_id, status=SheetStatus.DRAFT).update(
        active_seconds=F("active_seconds") + seconds
    )
    return bool(updated)

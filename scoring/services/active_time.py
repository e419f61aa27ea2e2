"""Active scoring time: what the page measured (focus and input, idle pauses left out)
is added to the sheet. Kept apart from the autosave path: a lost report only loses
a minute of timing, never a score.

The page's figure is a claim: a report adds at most the wall-clock time since the
previous report (or since the sheet was opened), so no client can add more time than
has passed, however many reports it sends."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from scoring.models import ScoreSheet, SheetStatus

# the page reports about once a minute; more than this in one report is not believable
ACTIVE_REPORT_MAX = 900


def sheet_active_time_add(*, sheet_id: int, seconds: int) -> bool:
    """Add ``seconds`` (1..ACTIVE_REPORT_MAX), capped by the whole seconds elapsed since
    the sheet's last report (or its opening), to a draft's active time; False for a
    submitted sheet (its time is final) or a value out of range."""
    if not 1 <= seconds <= ACTIVE_REPORT_MAX:
        return False
    with transaction.atomic():
        sheet = (
            ScoreSheet.all_objects.select_for_update()
            .only("active_seconds", "active_reported_at", "created_at")
            .filter(pk=sheet_id, status=SheetStatus.DRAFT)
            .first()
        )
        if sheet is None:
            return False
        now = timezone.now()
        since = sheet.active_reported_at or sheet.created_at
        elapsed = max(0, int((now - since).total_seconds()))
        sheet.active_seconds += min(seconds, elapsed)
        sheet.active_reported_at = now
        sheet.save(update_fields=["active_seconds", "active_reported_at"])
    return True

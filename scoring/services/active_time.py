"""Active scoring time: what the page measured (focus and input, idle pauses left out)
is added to the sheet. Kept apart from the autosave path: a lost report only loses
a minute of timing, never a score.

The page's figure is a claim: a report adds at most the wall-clock time since the
rater's previous report on any of their sheets (or since this sheet was opened), so no
client can add more time than has passed, however many reports it sends and however many
drafts it keeps open."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from scoring.models import ScoreSheet, SheetStatus

# the page reports about once a minute; more than this in one report is not believable
ACTIVE_REPORT_MAX = 900


def sheet_active_time_add(*, sheet_id: int, seconds: int) -> bool:
    """Add ``seconds`` (1..ACTIVE_REPORT_MAX), capped by the whole seconds elapsed since
    the rater's last report on any sheet (or this sheet's opening), to a draft's active
    time; False for a submitted sheet (its time is final) or a value out of range."""
    if not 1 <= seconds <= ACTIVE_REPORT_MAX:
        return False
    with transaction.atomic():
        drafts = ScoreSheet.all_objects.filter(pk=sheet_id, status=SheetStatus.DRAFT)
        rater_id = drafts.values_list("assignment__rater_id", flat=True).first()
        if rater_id is None:
            return False
        # one report of a rater at a time: two tabs' reports cannot both claim the same minute.
        # FOR NO KEY UPDATE: a save holding its sheet takes FOR KEY SHARE on the rater's row (its
        # event's foreign key), which FOR UPDATE would block while this waits for that sheet: a
        # deadlock when a page's last save and its time report meet (seen in the browser tests)
        get_user_model().objects.select_for_update(no_key=True).filter(pk=rater_id).first()
        sheet = drafts.select_for_update().only("active_seconds", "active_reported_at", "created_at").first()
        if sheet is None:
            return False
        last_anywhere = ScoreSheet.all_objects.filter(assignment__rater_id=rater_id).aggregate(
            last=Max("active_reported_at")
        )["last"]
        now = timezone.now()
        since = max(t for t in (sheet.active_reported_at or sheet.created_at, last_anywhere) if t)
        elapsed = max(0, int((now - since).total_seconds()))
        sheet.active_seconds += min(seconds, elapsed)
        sheet.active_reported_at = now
        sheet.save(update_fields=["active_seconds", "active_reported_at"])
    return True

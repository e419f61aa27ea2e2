"""Scoring's figures for the metrics endpoint, read at scrape time from the rows the
scoring pages write (so a save on any web host counts): human raters' work only."""

from __future__ import annotations

from django.db.models import Count

from scoring.models import Assignment, AssignmentRole, ScoreSheet, SheetEvent


def sheet_events_by_kind() -> dict[str, int]:
    """Audit events of human raters' sheets by kind, since ever (the trail is never
    deleted): ``change`` is a save (an autosave batch), ``submit`` a submit."""
    rows = (
        SheetEvent.objects.exclude(sheet__assignment__role=AssignmentRole.JUDGE)
        .values("kind")
        .annotate(n=Count("id"))
        .order_by("kind")
    )
    return {row["kind"]: row["n"] for row in rows}


def sheets_by_status() -> dict[str, int]:
    """Human raters' sheets now, by status (draft, submitted)."""
    rows = ScoreSheet.objects.values("status").annotate(n=Count("id")).order_by("status")
    return {row["status"]: row["n"] for row in rows}


def assignments_by_role() -> dict[str, int]:
    """Responses routed to human raters, since ever (assignments are archived, never
    deleted), by role: primary (a rater pair), calibration, training."""
    rows = Assignment.objects.values("role").annotate(n=Count("id")).order_by("role")
    return {row["role"]: row["n"] for row in rows}

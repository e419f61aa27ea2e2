"""Reads of the scoring domain (no writes here)."""

from __future__ import annotations

from scoring.models import DimensionScore, ItemScore, ScoreSheet
from scoring.rubric import CriterionEntry, IdeaEntry, Rubric, SheetEntries, load_rubric


def sheet_rubric(sheet: ScoreSheet) -> Rubric:
    return load_rubric(sheet.rubric_version)


def sheet_entries_get(*, sheet: ScoreSheet, rubric: Rubric | None = None) -> SheetEntries:
    """The raw entries of a sheet as plain dataclasses (two queries)."""
    rubric = rubric or sheet_rubric(sheet)
    entries = SheetEntries.empty(rubric)
    for item in ItemScore.objects.filter(sheet=sheet).order_by("step", "position"):
        step = rubric.step(item.step)
        if step.kind == "ideas" and item.position <= step.item_count:
            entries.ideas[item.step][item.position - 1] = IdeaEntry(
                category=item.category,
                invalid=item.invalid_type,
                elaboration=item.elaboration,
                originality=item.originality,
                comment=item.comment,
            )
        elif step.kind == "criteria" and item.position <= step.item_count:
            entries.criteria[item.position - 1] = CriterionEntry(
                correctly_written=item.correctly_written, relevance=item.relevance, comment=item.comment
            )
    for dim in DimensionScore.objects.filter(sheet=sheet):
        entries.dimensions[dim.dimension] = dim.value
    for key in ScoreSheet.TEXT_FIELDS:
        entries.texts[key] = getattr(sheet, key)
    entries.comments = {int(k): v for k, v in (sheet.comments or {}).items()}
    return entries


def rater_queue(*, user) -> list[dict]:
    """The rater's active assignments in their own random order, with only
    blind-safe fields: blind code, scenario theme and sheet status."""
    from scoring.models import Assignment

    rows = (
        Assignment.objects.filter(rater=user, archived_at__isnull=True)
        .select_related("response__scenario", "sheet")
        .order_by("order_key", "id")
    )
    queue = []
    for a in rows:
        sheet = getattr(a, "sheet", None)
        status = "not_started" if sheet is None else sheet.status
        queue.append(
            {
                "assignment_id": a.pk,
                "blind_code": a.response.blind_code,
                "theme": a.response.scenario.theme,
                "role": a.role,
                "status": status,
            }
        )
    return queue

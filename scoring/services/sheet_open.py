"""Opening a score sheet: created with its copy of its rows on first open."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.db.models import Count

from scoring.models import Assignment, EventKind, ScoreSheet, SheetEvent
from scoring.services.sheet_rows import entry_rows
from studies.parsing import ITEM_STEPS
from studies.rubric import SheetEntries, load_rubric, sheet_totals

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def sheet_open(
    *,
    assignment: Assignment,
    actor: User | None = None,
    item_counts: Mapping[int, int] | None = None,
) -> ScoreSheet:
    """The assignment's sheet, created with its copy of its rows on first open."""
    return sheet_open_entries(assignment=assignment, actor=actor, item_counts=item_counts)[0]


def sheet_open_entries(
    *,
    assignment: Assignment,
    actor: User | None = None,
    item_counts: Mapping[int, int] | None = None,
) -> tuple[ScoreSheet, SheetEntries | None]:
    """The assignment's sheet, created on first open, and, when it was created here, its
    entries (the caller need not read back what it just wrote; None for a sheet that
    existed). Items the response does not have (fewer than 8) start as Blank;
    ``item_counts``: the response's items per step, when the caller has read them already.

    A first open is two INSERTs (the sheet with its totals and its copy of its rows
    computed in memory, the audit event) in one transaction, after one count of the
    response's items unless ``item_counts`` is given. A draft's item and dimension rows
    are written at its submit (``scoring.services.sheet_rows``)."""
    try:
        return assignment.sheet, None  # no query when the caller fetched it with select_related
    except ScoreSheet.DoesNotExist:
        pass
    rubric = load_rubric(assignment.response.study.rubric_version)
    if item_counts is None:
        item_counts = dict(
            assignment.response.items.filter(step__in=ITEM_STEPS)
            .order_by()
            .values("step")
            .annotate(n=Count("id"))
            .values_list("step", "n")
        )
    entries = SheetEntries.empty(rubric)
    for step in rubric.steps:
        if step.kind == "ideas":
            for idea in entries.ideas[step.number][item_counts.get(step.number, 0) :]:
                idea.invalid = "blank"
    totals = sheet_totals(entries, rubric)
    try:
        with transaction.atomic():
            sheet = ScoreSheet.objects.create(
                assignment=assignment,
                rubric_version=rubric.version,
                totals=totals.as_dict(),
                overall=totals.overall,
                entry_rows=entry_rows(rubric, entries),
            )
            SheetEvent.objects.create(sheet_id=sheet.pk, actor=actor, kind=EventKind.CREATE, version=0)
    except IntegrityError:
        # Opened at the same moment elsewhere (another tab): the other request created it.
        existing = ScoreSheet.all_objects.filter(assignment=assignment).first()
        if existing is None:
            raise
        return existing, None
    return sheet, entries

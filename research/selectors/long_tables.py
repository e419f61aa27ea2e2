"""The item-level long table of every score sheet (one row per rater x response x item
or dimension), for analysts who load it into pandas or R without reshaping.

Row types: ``item`` (a Step-1/3 idea or a Step-4 criterion as the rater entered it:
category or invalid type, elaboration, originality, correctly written, relevance, the
item's comment), ``dimension`` (each of the 23 dimension scores, computed by
``studies.rubric.sheet_totals``) and ``step`` (the step total with the step's comment).
Every sheet of an active assignment is included, drafts too: ``sheet_status`` says which.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from itertools import islice
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from scoring.models import ScoreSheet
from scoring.selectors import sheets_entries_get
from studies.models import Study
from studies.rubric import CriterionEntry, IdeaEntry, Step, load_rubric, sheet_totals

ITEM_HEADER = (
    "study", "scenario", "condition", "model", "research_id", "rater", "role", "sheet_status",
    "row_type", "step", "item", "dimension", "category", "invalid_type", "elaboration",
    "originality", "correctly_written", "relevance", "score", "comment", "rubric_version",
    "submitted_at",
)  # fmt: skip
CHUNK, FIRST_CHUNK = 200, 10


def _sheets(study: Study) -> QuerySet[ScoreSheet]:
    return ScoreSheet.objects.filter(
        assignment__response__study=study, assignment__archived_at__isnull=True
    ).order_by("assignment__response__research_id", "assignment__role", "assignment__rater_id", "pk")


def item_sheets_count(*, study: Study) -> int:
    return _sheets(study).count()


def item_rows_iter(
    *, study: Study, on_sheet: Callable[[int], None] | None = None, offset: int = 0
) -> Iterator[tuple[Any, ...]]:
    """The long table from its row ``offset`` on, sheet by sheet (entries read in chunks of
    ``FIRST_CHUNK`` sheets doubling up to ``CHUNK``). The sheets' order is read first and then
    their columns a chunk at a time: sorting the whole joined table with the sheets' entry columns
    took 2.9 s at 12,000 sheets, before the first row of a page. The sheets wholly before
    ``offset`` are only counted from their rubric (``_sheets_before``), never read."""
    username = f"assignment__rater__{get_user_model().USERNAME_FIELD}"
    columns = _sheets(study).order_by().select_related(
        "assignment__response__scenario", "assignment__response__model", "assignment__response__condition",
        "assignment__rater__rater_profile",
    ).only(
        "pk", "status", "rubric_version", "submitted_at", "comments", "condition_phrase", "stem", "kvp", "entry_rows",
        "purpose", "other_texts", "assignment__role", "assignment__response__research_id",
        "assignment__response__scenario__code", "assignment__response__model__name",
        "assignment__response__condition__letter", "assignment__rater__rater_profile__rater_code",
        username,
    )  # fmt: skip
    versions = list(_sheets(study).values_list("pk", "rubric_version"))
    order = [pk for pk, _version in versions]
    start, skipped = _sheets_before(versions, offset) if offset > 0 else (0, 0)
    done = 0
    size = FIRST_CHUNK  # growing: a page of the API needs a few sheets, an export reads them all
    while start < len(order):
        ids = order[start : start + size]
        start, size = start + size, min(size * 2, CHUNK)
        found = columns.in_bulk(ids)
        chunk = [found[pk] for pk in ids if pk in found]  # a sheet gone meanwhile is left out
        rows = _chunk_rows(study, chunk)
        if skipped < offset:  # the first sheet read may begin before the offset
            rows = islice(rows, offset - skipped, None)
            skipped = offset
        yield from rows
        done += len(chunk)
        if on_sheet:
            on_sheet(done)


def _sheets_before(order: list[tuple[int, str]], offset: int) -> tuple[int, int]:
    """How many sheets of ``order`` (id, rubric version) lie wholly before row ``offset`` of the
    table, and their rows: a sheet's rows are its rubric's (every item slot has its row)."""
    rows = 0
    for index, (_pk, version) in enumerate(order):
        count = _rows_per_sheet(version)
        if rows + count > offset:
            return index, rows
        rows += count
    return len(order), rows


def _other_item_scores(step: Step) -> list[str]:
    """A step's item scores other than the CGPST sheet's, which have columns of the table."""
    columns = IdeaEntry.COLUMNS if step.kind == "ideas" else CriterionEntry.COLUMNS
    return [s.key for s in step.item_scores if s.key not in columns]


@functools.cache
def _rows_per_sheet(version: str) -> int:
    """The rows ``_chunk_rows`` writes for a sheet of rubric ``version``: each step's item slots,
    then its dimensions and its total."""
    count = 0
    for step in load_rubric(version).steps:
        if step.kind in ("ideas", "criteria"):
            count += step.item_count * (1 + len(_other_item_scores(step)))
        count += len(step.dimensions) + 1
    return count


def _chunk_rows(study: Study, sheets: list[ScoreSheet]) -> Iterator[tuple[Any, ...]]:
    entries = sheets_entries_get(sheets=sheets)
    for sheet in sheets:
        assignment = sheet.assignment
        response = assignment.response
        profile = getattr(assignment.rater, "rater_profile", None)
        rater = (profile.rater_code if profile else "") or assignment.rater.get_username()
        rubric = load_rubric(sheet.rubric_version)
        sheet_entries = entries[sheet.pk]
        totals = sheet_totals(sheet_entries, rubric)
        lead = (
            study.name, response.scenario.code, response.condition.letter, response.model.name,
            response.research_id, rater, assignment.role, sheet.status,
        )  # fmt: skip
        tail = (sheet.rubric_version, sheet.submitted_at.isoformat() if sheet.submitted_at else "")
        for step in rubric.steps:
            items: list[IdeaEntry | CriterionEntry] = [
                *(
                    sheet_entries.ideas.get(step.number, [])
                    if step.kind == "ideas"
                    else sheet_entries.criteria
                )
            ]
            for position, item in enumerate(items if step.has_items else [], start=1):
                if isinstance(item, IdeaEntry):
                    yield (*lead, "item", step.number, position, "", item.category, item.invalid,
                           item.elaboration, item.originality, None, None, None, item.comment, *tail)  # fmt: skip
                elif isinstance(item, CriterionEntry):
                    yield (*lead, "item", step.number, position, "", "", "", None, None,
                           item.correctly_written, item.relevance, None, item.comment, *tail)  # fmt: skip
                for key in _other_item_scores(step):  # a row each, the item score's key as dimension
                    yield (*lead, "item_score", step.number, position, key, "", "", None, None, None,
                           None, item.score(key), "", *tail)  # fmt: skip
            for d in step.dimensions:
                yield (*lead, "dimension", step.number, None, d.key, "", "", None, None, None, None,
                       totals.dimensions.get(d.key), "", *tail)  # fmt: skip
            yield (*lead, "step", step.number, None, f"step.{step.number}", "", "", None, None, None, None,
                   totals.steps.get(step.number), sheet_entries.comments.get(step.number, ""), *tail)  # fmt: skip

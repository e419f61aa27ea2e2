"""The rows of a score sheet as the writes store them: an item row from the entries,
the sheet's copy of its rows, and the upserts of the rows.

A draft's entries live in the sheet's copy (``ScoreSheet.entry_rows``), written with
every save in the save's transaction: a save of a draft is one UPDATE of the sheet,
whatever the number of changes. The item and dimension rows (``ItemScore``,
``DimensionScore``), which the research queries read, are written when the sheet is
submitted (all of them) and by every later write to a submitted sheet (a correction:
the rows it touched); a draft's rows are those of its last submit, if any, and no
reader takes a draft's entries from them (``scoring.selectors.sheets_entries_get``
reads the copy)."""

from __future__ import annotations

from typing import Any

from scoring.entries import EntryPath
from scoring.models import DimensionScore, ItemScore, ScoreSheet
from studies.rubric import Rubric, SheetEntries


def item_row(rubric: Rubric, entries: SheetEntries, step: int, pos: int) -> dict[str, Any]:
    """The columns of one item's ItemScore row (all but the sheet), taken from ``entries``."""
    if rubric.step(step).kind == "ideas":
        idea = entries.ideas[step][pos - 1]
        return {
            "step": step,
            "position": pos,
            "category": idea.category,
            "invalid_type": idea.invalid,
            "elaboration": idea.elaboration,
            "originality": idea.originality,
            "correctly_written": None,
            "relevance": None,
            "other_scores": dict(idea.other_scores),
            "comment": idea.comment,
        }
    crit = entries.criteria[pos - 1]
    return {
        "step": step,
        "position": pos,
        "category": "",
        "invalid_type": "",
        "elaboration": None,
        "originality": None,
        "correctly_written": crit.correctly_written,
        "relevance": crit.relevance,
        "other_scores": dict(crit.other_scores),
        "comment": crit.comment,
    }


def entry_rows(rubric: Rubric, entries: SheetEntries) -> dict[str, Any]:
    """The sheet's rows as ``ScoreSheet.entry_rows`` keeps them: every item row's columns by
    name (``item_row``), and the dimensions."""
    items = [
        item_row(rubric, entries, step.number, pos)
        for step in rubric.steps
        if step.has_items
        for pos in range(1, step.item_count + 1)
    ]
    return {"items": items, "dims": dict(entries.dimensions)}


# Every column an item row's upsert rewrites (all of them but the key).
ITEM_COLUMNS = [
    "category", "invalid_type", "elaboration", "originality", "correctly_written", "relevance", "other_scores",
    "comment",
]  # fmt: skip


def rows_store(
    sheet: ScoreSheet, rubric: Rubric, entries: SheetEntries, applied: list[EntryPath]
) -> set[str]:
    """Set the applied changes on ``sheet`` (its copy of its rows, texts, comments) and
    return the names of the fields set, for the caller's single save of it. On a
    submitted sheet, also write the item and dimension rows the changes touched: at most
    one upsert of each (``bulk_create`` with ``update_conflicts``); a draft's rows wait
    for its submit (``rows_store_all``)."""
    items: set[tuple[int, int]] = set()  # each touched item once, however many of its fields changed
    dims: set[str] = set()
    dirty: set[str] = set()
    for where in applied:
        if where.kind == "items":
            items.add((where.step, where.position))
        elif where.kind == "dims":
            dims.add(where.key)
        elif where.kind == "texts":
            dirty.add(sheet.copied_text_set(where.key, entries.texts[where.key]))
        else:
            sheet.comments = {**(sheet.comments or {}), str(where.step): entries.comments[where.step]}
            dirty.add("comments")
    if sheet.is_submitted:
        _upsert(sheet, rubric, entries, sorted(items), sorted(dims))
    sheet.entry_rows = entry_rows(rubric, entries)
    dirty.add("entry_rows")
    return dirty


def rows_store_all(sheet: ScoreSheet, rubric: Rubric, entries: SheetEntries) -> None:
    """Write every item and dimension row of ``sheet`` from ``entries`` (at its submit):
    one upsert of item rows and one of dimension rows."""
    items = [
        (step.number, pos)
        for step in rubric.steps
        if step.has_items and not entries.dimension_level  # a sheet of dimension scores has no items
        for pos in range(1, step.item_count + 1)
    ]
    _upsert(sheet, rubric, entries, items, sorted(entries.dimensions))


def _upsert(
    sheet: ScoreSheet, rubric: Rubric, entries: SheetEntries, items: list[tuple[int, int]], dims: list[str]
) -> None:
    if items:
        ItemScore.objects.bulk_create(
            [ItemScore(sheet_id=sheet.pk, **item_row(rubric, entries, *key)) for key in items],
            update_conflicts=True,
            unique_fields=["sheet", "step", "position"],
            update_fields=ITEM_COLUMNS,
        )
    if dims:
        DimensionScore.objects.bulk_create(
            [DimensionScore(sheet_id=sheet.pk, dimension=key, value=entries.dimensions[key]) for key in dims],
            update_conflicts=True,
            unique_fields=["sheet", "dimension"],
            update_fields=["value"],
        )

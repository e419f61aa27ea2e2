"""The rows of a score sheet as the writes store them: an item row from the entries,
and the upserts of the rows a batch of changes touched."""

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
        "comment": crit.comment,
    }


def entry_rows(rubric: Rubric, entries: SheetEntries) -> dict[str, Any]:
    """The sheet's rows as ``ScoreSheet.entry_rows`` keeps them: every item row's columns
    in ``item_row``'s order, and the dimensions."""
    items = [
        list(item_row(rubric, entries, step.number, pos).values())
        for step in rubric.steps
        if step.has_items
        for pos in range(1, step.item_count + 1)
    ]
    return {"items": items, "dims": dict(entries.dimensions)}


# Every column an item row's upsert rewrites (all of them but the key).
ITEM_COLUMNS = [
    "category", "invalid_type", "elaboration", "originality", "correctly_written", "relevance", "comment",
]  # fmt: skip


def rows_store(
    sheet: ScoreSheet, rubric: Rubric, entries: SheetEntries, applied: list[EntryPath]
) -> set[str]:
    """Write the rows the applied changes touched: at most one upsert of item rows and one
    of dimension rows (``bulk_create`` with ``update_conflicts``), whatever the number of
    changes. Texts and comments live on the sheet row: they are set on ``sheet`` and their
    names returned for the caller's single save of it."""
    items: set[tuple[int, int]] = set()  # each touched item once, however many of its fields changed
    dims: set[str] = set()
    dirty: set[str] = set()
    for where in applied:
        if where.kind == "items":
            items.add((where.step, where.position))
        elif where.kind == "dims":
            dims.add(where.key)
        elif where.kind == "texts":
            setattr(sheet, where.key, entries.texts[where.key])
            dirty.add(where.key)
        else:
            sheet.comments = {**(sheet.comments or {}), str(where.step): entries.comments[where.step]}
            dirty.add("comments")
    if items:
        ItemScore.objects.bulk_create(
            [ItemScore(sheet_id=sheet.pk, **item_row(rubric, entries, *key)) for key in sorted(items)],
            update_conflicts=True,
            unique_fields=["sheet", "step", "position"],
            update_fields=ITEM_COLUMNS,
        )
    if dims:
        DimensionScore.objects.bulk_create(
            [
                DimensionScore(sheet_id=sheet.pk, dimension=key, value=entries.dimensions[key])
                for key in sorted(dims)
            ],
            update_conflicts=True,
            unique_fields=["sheet", "dimension"],
            update_fields=["value"],
        )
    sheet.entry_rows = entry_rows(rubric, entries)
    dirty.add("entry_rows")
    return dirty

"""What the rater sees in the dropdowns, and how cell values map back to entries.

Categories and invalid types are shown in the workbook's language; on import both
languages (and the internal keys) are accepted, case-insensitively.
"""

from __future__ import annotations

from typing import Any

from studies.rubric import INVALID_PREFIX, Rubric, SheetEntries


def category_options(rubric: Rubric, lang: str) -> list[str]:
    return [rubric.category_label(key, lang) for key in rubric.category_keys]


def invalid_options(rubric: Rubric, step: int, lang: str) -> list[str]:
    return [t.label.text(lang) for t in rubric.step(step).invalid_types]


def _norm(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def category_from_cell(rubric: Rubric, text: str) -> str | None:
    """The category key for a cell value in either language, or None if unknown."""
    wanted = _norm(text)
    for key in rubric.category_keys:
        if wanted in {_norm(key), _norm(rubric.category_label(key, "zh"))}:
            return key
    return None


def invalid_from_cell(rubric: Rubric, step: int, text: str) -> str | None:
    wanted = _norm(text)
    for t in rubric.step(step).invalid_types:
        if wanted in {_norm(t.key), _norm(t.label.en), _norm(t.label.zh)}:
            return t.key
    return None


def entries_to_cells(entries: SheetEntries, rubric: Rubric, lang: str) -> dict[str, Any]:
    """Pre-fill values (by input path) for a sheet's current entries."""
    cells: dict[str, Any] = {}
    for step in rubric.steps:
        n = step.number
        if step.kind == "ideas":
            for pos, item in enumerate(entries.ideas.get(n, []), start=1):
                base = f"items.{n}.{pos}"
                if item.invalid:
                    label = next(
                        (t.label.text(lang) for t in step.invalid_types if t.key == item.invalid), ""
                    )
                    cells[f"{base}.invalid"] = label
                elif item.category:
                    cells[f"{base}.category"] = rubric.category_label(item.category, lang)
                for spec in step.item_scores:
                    cells[f"{base}.{spec.key}"] = item.score(spec.key)
                cells[f"{base}.comment"] = item.comment
        elif step.kind == "criteria":
            for pos, crit in enumerate(entries.criteria, start=1):
                for spec in step.item_scores:
                    cells[f"items.{n}.{pos}.{spec.key}"] = crit.score(spec.key)
                cells[f"items.{n}.{pos}.comment"] = crit.comment
        for d in step.scored_dimensions:
            cells[f"dims.{d.key}"] = entries.dimensions.get(d.key)
        for t in step.texts:
            cells[f"texts.{t.key}"] = entries.texts.get(t.key, "")
        cells[f"comments.{n}"] = entries.comments.get(n, "")
    return {k: v for k, v in cells.items() if v not in (None, "")}


def classification_value(category_key: str | None, invalid_key: str | None) -> str:
    if invalid_key:
        return INVALID_PREFIX + invalid_key
    return category_key or ""

"""The calibrator's comparison item by item: what each submitted sheet entered for every
Step-1 and Step-3 item (category or invalid type, Elaboration, Originality), the Step-2
texts, Step-4 criteria, the Step-5 choice and every comment, with the rows where the
sheets differ marked.

Blind: only the response's own texts and what the three sheets entered, by column
(Rater A, Rater B, Calibrator); nothing names a rater, the model, the condition or the
research ID."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from studies.rubric import CriterionEntry, IdeaEntry, Rubric, ScoreSpec, SheetEntries, Step


def level_text(spec: ScoreSpec, value: float | None, lang: str) -> str:
    """The rubric's description of the level ``value`` of a score ('' when it has none);
    halves (a mean of reference sheets) read as the nearest level."""
    if value is None:
        return ""
    level = next((lv for lv in spec.levels if lv.score == round(value)), None)
    return level.text(lang) if level else ""


def _label(rubric: Rubric, step: Step, classification: str, lang: str) -> str:
    if not classification:
        return ""
    if classification.startswith("invalid:"):
        key = classification.removeprefix("invalid:")
        for t in step.invalid_types:
            if t.key == key:
                return t.label.text(lang)
        return key
    return rubric.category_label(classification, lang)


def _differs(values: Sequence[object]) -> bool:
    """More than one distinct entry among the sheets (texts compared as written, trimmed)."""
    seen = {v.strip() if isinstance(v, str) else v for v in values}
    return len(seen) > 1


def _scores(
    step: Step, found: IdeaEntry | CriterionEntry | None, lang: str, levels: bool
) -> list[dict[str, Any]]:
    out = []
    for spec in step.item_scores:
        value = found.score(spec.key) if found else None
        out.append(
            {
                "label": spec.label.text(lang),
                "value": value,
                "level": level_text(spec, value, lang) if levels else "",
            }
        )
    return out


def _idea_rows(
    rubric: Rubric, step: Step, sheets: list[SheetEntries], texts: dict[int, str], lang: str, levels: bool
) -> list[dict[str, Any]]:
    rows = []
    for pos in range(1, step.item_count + 1):
        items = [entries.ideas.get(step.number, [])[pos - 1 : pos] for entries in sheets]
        cells: list[dict[str, Any]] = []
        for found in items:
            item = found[0] if found else None
            cells.append(
                {
                    "classification": item.classification if item else "",
                    "label": _label(rubric, step, item.classification, lang) if item else "",
                    "is_yes": bool(item and item.is_yes),
                    "scores": _scores(step, item, lang, levels),
                    "comment": item.comment if item else "",
                }
            )
        differs = _differs([c["classification"] for c in cells]) or any(
            _differs([c["scores"][i]["value"] for c in cells]) for i in range(len(step.item_scores))
        )
        rows.append(
            {
                "pos": pos,
                "text": texts.get(pos, ""),
                "cells": cells,
                "differs": differs,
                "comments_differ": _differs([c["comment"] for c in cells]),
            }
        )
    return rows


def _criteria_rows(
    step: Step, sheets: list[SheetEntries], texts: dict[int, str], lang: str, levels: bool
) -> list[dict[str, Any]]:
    rows = []
    for pos in range(1, step.item_count + 1):
        cells: list[dict[str, Any]] = []
        for entries in sheets:
            found = entries.criteria[pos - 1 : pos]
            crit = found[0] if found else None
            cells.append(
                {
                    "scores": _scores(step, crit, lang, levels),
                    "comment": crit.comment if crit else "",
                }
            )
        rows.append(
            {
                "pos": pos,
                "text": texts.get(pos, ""),
                "cells": cells,
                "differs": any(
                    _differs([c["scores"][i]["value"] for c in cells]) for i in range(len(step.item_scores))
                ),
                "comments_differ": _differs([c["comment"] for c in cells]),
            }
        )
    return rows


def comparison_items(
    *,
    rubric: Rubric,
    sheets: list[SheetEntries],
    items: dict[int, dict[int, str]],
    lang: str,
    levels: bool = False,
) -> list[dict[str, Any]]:
    """One block per step, in the columns' order of ``sheets`` (only submitted sheets).
    With ``levels`` each score carries the rubric's text of its level (the trainee's
    feedback shows them beside the reference's)."""
    steps = []
    for step in rubric.steps:
        n = step.number
        block: dict[str, Any] = {
            "number": n,
            "name": step.name.text(lang),
            "kind": step.kind,
            "item_label": step.item_label.text(lang) if step.item_label else "",
            "rows": [],
            "texts": [],
            "dims": [],
        }
        if step.kind == "ideas":
            block["rows"] = _idea_rows(rubric, step, sheets, items.get(n, {}), lang, levels)
        elif step.kind == "criteria":
            block["rows"] = _criteria_rows(step, sheets, items.get(n, {}), lang, levels)
        for t in step.texts:
            values = [entries.texts.get(t.key, "") for entries in sheets]
            block["texts"].append(
                {"label": t.label.text(lang), "values": values, "differs": _differs(values)}
            )
        if step.kind == "dimensions":
            for d in step.scored_dimensions:
                scores = [entries.dimensions.get(d.key) for entries in sheets]
                block["dims"].append(
                    {
                        "label": d.label.text(lang),
                        "values": scores,
                        "differs": _differs(scores),
                        "cells": [
                            {"value": v, "level": level_text(d, v, lang) if levels else ""} for v in scores
                        ],
                    }
                )
        comments = [entries.comments.get(n, "") for entries in sheets]
        block["comment"] = {"values": comments, "differs": _differs(comments), "any": any(comments)}
        block["differences"] = (
            sum(r["differs"] for r in block["rows"])
            + sum(t["differs"] for t in block["texts"])
            + sum(d["differs"] for d in block["dims"])
        )
        steps.append(block)
    return steps

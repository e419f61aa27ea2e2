"""What a judge must answer, and the checks its answer goes through. Pure (no ORM).

The answer is ONE JSON object whose keys are exactly the sheet's entry paths (the
paths the web form posts, ``scoring.entries``): per present item of Steps 1 and 3
``items.<s>.<pos>.classification`` / ``.elaboration`` / ``.originality``, per
criterion of Step 4 ``items.4.<pos>.correctly_written`` / ``.relevance``, the
Step-2 ``texts.*`` and every directly scored ``dims.*``. Items the response does not
have are Blank on the sheet (as ``sheet_open`` makes them) and are not asked for.

Every value goes through the web form's own ``parse_path`` / ``clean_value`` /
``apply_value`` and the sheet's totals through ``sheet_totals``: an answer is valid
exactly when a rater could have submitted the same sheet.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from scoring.entries import EntryError, apply_value, clean_value, parse_path
from studies.rubric import INVALID_PREFIX, Rubric, SheetEntries, sheet_totals

_FENCE = re.compile(r"^```(?:json)?\s*\n(?P<body>.*)\n```$", re.S)


@dataclass(frozen=True)
class SheetShape:
    """The entries one response's sheet needs: the rubric and how many items the
    response has in each idea step (the rest are Blank)."""

    rubric: Rubric
    present: dict[int, int] = field(default_factory=dict)

    def items_present(self, step: int) -> int:
        return min(self.present.get(step, 0), self.rubric.step(step).item_count)


def expected_paths(shape: SheetShape) -> list[str]:
    """Every entry the answer must contain, classification before an item's scores
    (an item's scores are checked against its classification)."""
    paths: list[str] = []
    for step in shape.rubric.steps:
        n = step.number
        if step.kind == "ideas":
            for pos in range(1, shape.items_present(n) + 1):
                paths.append(f"items.{n}.{pos}.classification")
                paths.extend(f"items.{n}.{pos}.{spec.key}" for spec in step.item_scores)
        elif step.kind == "criteria":
            for pos in range(1, step.item_count + 1):
                paths.extend(f"items.{n}.{pos}.{spec.key}" for spec in step.item_scores)
        paths.extend(f"texts.{t.key}" for t in step.texts)
        paths.extend(f"dims.{d.key}" for d in step.scored_dimensions)
    # a comment the rubric may ask for (its reason for a preference): always in the answer
    paths.extend(
        f"comments.{s.number}" for s in shape.rubric.steps if s.comment.required or s.comment.dimension
    )
    return paths


def classification_choices(rubric: Rubric, step: int) -> list[str]:
    return list(rubric.category_keys) + [INVALID_PREFIX + t.key for t in rubric.step(step).invalid_types]


def _value_schema(shape: SheetShape, path: str) -> dict[str, Any]:
    rubric = shape.rubric
    where = parse_path(rubric, path)
    if where.kind in ("texts", "comments"):
        return {"type": "string"}
    if where.kind == "dims":
        dim = rubric.dimension(where.key)
        return {"type": "integer", "minimum": dim.min, "maximum": dim.max}
    step = rubric.step(where.step)
    if where.field == "classification":
        return {"type": "string", "enum": classification_choices(rubric, where.step)}
    spec = step.item_score(where.field)
    if step.kind == "ideas":  # only Yes items are scored
        return {"type": ["integer", "null"], "minimum": spec.min, "maximum": spec.max}
    return {"type": "integer", "minimum": spec.min, "maximum": spec.max}


def answer_schema(shape: SheetShape) -> dict[str, Any]:
    """The JSON schema of a complete answer (strict: every key required, no other)."""
    paths = expected_paths(shape)
    return {
        "type": "object",
        "properties": {path: _value_schema(shape, path) for path in paths},
        "required": paths,
        "additionalProperties": False,
    }


def blank_entries(shape: SheetShape) -> SheetEntries:
    """The sheet before any answer: items the response lacks are Blank."""
    entries = SheetEntries.empty(shape.rubric)
    for step in shape.rubric.steps:
        if step.kind == "ideas":
            for idea in entries.ideas[step.number][shape.items_present(step.number) :]:
                idea.invalid = "blank"
    return entries


@dataclass(frozen=True)
class Checked:
    """A checked answer: ``values`` (path -> cleaned value, in expected order) when
    ``errors`` is empty."""

    values: dict[str, Any]
    errors: list[str]

    @property
    def ok(self) -> bool:
        return not self.errors


def _decode(raw: str) -> tuple[Any, str]:
    text = (raw or "").strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced["body"].strip()
    if not text.startswith("{"):
        return None, "The answer must be one JSON object and nothing else (no prose before or after it)."
    try:
        return json.loads(text), ""
    except json.JSONDecodeError as exc:
        hint = " (it looks cut off)" if not text.endswith("}") else ""
        return None, f"The answer is not valid JSON{hint}: {exc.msg} at character {exc.pos}."


def answer_check(shape: SheetShape, raw: str) -> Checked:
    """Decode and validate a raw answer with the web form's code; every problem named."""
    data, problem = _decode(raw)
    if problem:
        return Checked({}, [problem])
    if not isinstance(data, dict):
        return Checked({}, ["The answer must be a JSON object keyed by entry path."])
    return values_check(shape, data)


def values_check(shape: SheetShape, data: dict[str, Any]) -> Checked:
    expected = expected_paths(shape)
    errors = [f"{path}: missing entry." for path in expected if path not in data]
    errors += [f"{path}: not an entry of this sheet." for path in data if path not in set(expected)]
    entries = blank_entries(shape)
    values: dict[str, Any] = {}
    for path in expected:
        if path not in data:
            continue
        try:
            where = parse_path(shape.rubric, path)
            cleaned = clean_value(shape.rubric, entries, where, data[path])
        except EntryError as exc:
            errors.append(f"{exc.path}: {exc.message} (got {json.dumps(data[path], ensure_ascii=False)})")
            continue
        apply_value(entries, where, cleaned)
        values[path] = cleaned
    if not errors:
        for missing in sheet_totals(entries, shape.rubric).missing:
            errors.append(f"{missing.path}: a value is required ({missing.message}).")
    return Checked(values if not errors else {}, errors)


def _majority(values: list[Any]) -> Any:
    """The most frequent value; a tie goes to the value seen first."""
    counts = Counter(values)
    best = max(counts.values())
    return next(v for v in values if counts[v] == best)


def round_half_up(value: float) -> int:
    """Sheet entries are whole numbers: 1.5 -> 2, 2.5 -> 3 (never banker's rounding)."""
    return math.floor(value + 0.5)


def samples_combine(shape: SheetShape, samples: list[dict[str, Any]]) -> Checked:
    """One sheet from k valid answers: classifications, texts and comments by majority (ties to
    the first sample), numbers by their mean rounded half up. An item's scores are the
    mean over the samples that scored it (those that made it a Yes item), and only if
    the combined classification is a Yes."""
    if len(samples) == 1:
        return values_check(shape, samples[0])
    combined: dict[str, Any] = {}
    for path in expected_paths(shape):
        values = [s[path] for s in samples]
        if path.endswith(".classification") or path.startswith(("texts.", "comments.")):
            combined[path] = _majority(values)
            continue
        numbers = [v for v in values if v is not None]
        item_path = path.rsplit(".", 1)[0] + ".classification"
        if item_path in combined and (
            not combined[item_path] or str(combined[item_path]).startswith(INVALID_PREFIX)
        ):
            combined[path] = None
        else:
            combined[path] = round_half_up(sum(numbers) / len(numbers)) if numbers else None
    return values_check(shape, combined)

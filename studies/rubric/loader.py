"""Reading and validating the rubric's JSON file (``load_rubric``, cached per version)."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path

from studies.rubric.schema import (
    LEVEL_SOURCES,
    Category,
    InvalidType,
    Label,
    Level,
    Rubric,
    RubricError,
    ScoreSpec,
    Step,
    TextSpec,
)

RUBRIC_DIR = Path(__file__).resolve().parent
DEFAULT_RUBRIC_VERSION = "cgpst-v1"


def _label(raw, where: str) -> Label:
    if not isinstance(raw, dict) or not raw.get("en") or not raw.get("zh"):
        raise RubricError(f"{where}: needs an English and a Chinese text")
    return Label(en=str(raw["en"]), zh=str(raw["zh"]))


def _levels(raw: list, lo: int, hi: int, where: str, source) -> tuple[Level, ...]:
    if raw and source not in LEVEL_SOURCES:
        raise RubricError(f"{where}: levels_source must be one of {', '.join(LEVEL_SOURCES)}")
    # a level a study's admin rewrote says so itself ("source": "edited")
    levels = tuple(
        Level(int(lv["score"]), str(lv["en"]), str(lv["zh"]), str(lv.get("source", source))) for lv in raw
    )
    if any(lv.source not in LEVEL_SOURCES for lv in levels):
        raise RubricError(f"{where}: a level's source must be one of {', '.join(LEVEL_SOURCES)}")
    if levels and sorted(lv.score for lv in levels) != list(range(lo, hi + 1)):
        raise RubricError(f"{where}: level scores must cover {lo}..{hi} exactly once")
    for lv in levels:
        if not lv.en or not lv.zh:
            raise RubricError(f"{where}: level {lv.score} needs English and Chinese text")
    return levels


def _score_spec(raw: dict, where: str, step: int) -> ScoreSpec:
    try:
        lo, hi = int(raw["min"]), int(raw["max"])
    except (KeyError, TypeError, ValueError) as exc:
        raise RubricError(f"{where}: min and max must be integers") from exc
    if lo > hi or lo < 0:
        raise RubricError(f"{where}: bad range {lo}..{hi}")
    return ScoreSpec(
        key=str(raw["key"]),
        label=_label(raw.get("label"), f"{where} label"),
        min=lo,
        max=hi,
        levels=_levels(raw.get("levels", []), lo, hi, where, raw.get("levels_source")),
        computed=str(raw.get("computed", "")),
        integrity=bool(raw.get("integrity", False)),
        description=_label(raw["description"], f"{where} description") if "description" in raw else None,
        step=step,
        guideline=_optional_label(raw, "guideline", where),
    )


def _optional_label(raw: dict, key: str, where: str) -> Label | None:
    return _label(raw[key], f"{where} {key}") if key in raw else None


_COMPUTED = {"fluency", "flexibility", "elaboration", "originality"}


def parse_rubric(data: dict) -> Rubric:
    """Build and validate a Rubric from its JSON document; raises RubricError."""
    if not isinstance(data, dict):
        raise RubricError("the rubric must be a JSON object")
    try:
        raw_steps = data["steps"]
        version = str(data["version"])
    except KeyError as exc:
        raise RubricError(f"missing key {exc}") from exc
    categories = tuple(
        Category(
            key=str(c["key"]), zh=str(c["zh"]), description=_label(c["description"], f"category {c['key']}")
        )
        for c in data.get("categories", [])
    )
    keys = [c.key for c in categories]
    if len(keys) != len(set(keys)) or not keys:
        raise RubricError("categories must be a non-empty list of unique keys")
    steps = []
    for i, raw in enumerate(raw_steps, start=1):
        where = f"step {i}"
        if int(raw.get("number", 0)) != i:
            raise RubricError(f"{where}: steps must be numbered 1..n in order")
        kind = raw.get("kind")
        if kind not in ("ideas", "criteria", "dimensions"):
            raise RubricError(f"{where}: unknown kind {kind!r}")
        dims = tuple(
            _score_spec(d, f"{where} dimension {d.get('key')}", i) for d in raw.get("dimensions", [])
        )
        if not dims:
            raise RubricError(f"{where}: no dimensions")
        item_scores = tuple(
            _score_spec(s, f"{where} item score {s.get('key')}", i) for s in raw.get("item_scores", [])
        )
        step = Step(
            number=i,
            name=_label(raw.get("name"), f"{where} name"),
            max=int(raw["max"]),
            kind=kind,
            dimensions=dims,
            item_count=int(raw.get("item_count", 0)),
            item_label=_label(raw["item_label"], f"{where} item label") if "item_label" in raw else None,
            yes_description=_label(raw["yes_description"], f"{where} yes")
            if "yes_description" in raw
            else None,
            invalid_types=tuple(
                InvalidType(
                    str(t["key"]), _label(t["label"], f"{where} invalid"), _label(t["description"], where)
                )
                for t in raw.get("invalid_types", [])
            ),
            item_scores=item_scores,
            texts=tuple(
                TextSpec(
                    str(t["key"]),
                    _label(t["label"], f"{where} text"),
                    _label(t["help"], f"{where} text help"),
                )
                for t in raw.get("texts", [])
            ),
            shows_step2_texts=tuple(raw.get("shows_step2_texts", [])),
            guideline=_optional_label(raw, "guideline", where),
        )
        if sum(d.max for d in dims) != step.max:
            raise RubricError(
                f"{where}: dimension maxima add up to {sum(d.max for d in dims)}, not {step.max}"
            )
        for d in dims:
            if not d.key.startswith(f"s{i}."):
                raise RubricError(f"{where}: dimension key {d.key!r} must start with 's{i}.'")
            if d.computed and kind == "dimensions":
                raise RubricError(f"{where}: {d.key} cannot be computed in a dimensions step")
            if not d.computed and kind != "dimensions":
                raise RubricError(f"{where}: {d.key} must be computed from items")
            if d.computed and not (
                d.computed in _COMPUTED
                or (d.computed.startswith("sum:") and d.computed[4:] in {s.key for s in item_scores})
            ):
                raise RubricError(f"{where}: unknown computation {d.computed!r}")
        if step.has_items and step.item_count < 1:
            raise RubricError(f"{where}: item steps need item_count")
        if kind == "ideas":
            if {s.key for s in item_scores} != {"elaboration", "originality"} or not step.invalid_types:
                raise RubricError(f"{where}: idea steps need elaboration, originality and invalid types")
            if "blank" not in {t.key for t in step.invalid_types}:
                raise RubricError(f"{where}: idea steps need the Blank invalid type")
        steps.append(step)
    all_keys = [d.key for s in steps for d in s.dimensions]
    if len(all_keys) != len(set(all_keys)):
        raise RubricError("dimension keys must be unique")
    max_total = int(data.get("max_total", 0))
    if sum(s.max for s in steps) != max_total:
        raise RubricError(f"step maxima add up to {sum(s.max for s in steps)}, not max_total {max_total}")
    variants = tuple(str(v) for v in data.get("miscellaneous_variants", []))
    return Rubric(
        version=version,
        title=_label(data.get("title"), "title"),
        max_total=max_total,
        steps=tuple(steps),
        categories=categories,
        category_keys=tuple(keys) + variants,
    )


# Versions that are not files (a study's edited guidelines and level texts) come from a
# source the app layer registers (it reads them from the database). A version never
# changes once made, so caching by version stays right.
_sources: list[Callable[[str], dict | None]] = []


def rubric_source_register(source: Callable[[str], dict | None]) -> None:
    """Add a lookup ``version -> rubric document or None`` for versions without a file."""
    if source not in _sources:
        _sources.append(source)


def rubric_data(version: str) -> dict:
    """The JSON document of a rubric version: its file, else a registered source."""
    path = RUBRIC_DIR / f"{version}.json"
    if path.is_file() and path.parent == RUBRIC_DIR:
        return json.loads(path.read_text(encoding="utf-8"))
    for source in _sources:
        data = source(version)
        if data is not None:
            return data
    raise RubricError(f"no rubric file for version {version!r}")


@cache
def load_rubric(version: str = DEFAULT_RUBRIC_VERSION) -> Rubric:
    """The rubric of that version from ``studies/rubric/<version>.json`` or a registered
    source (validated, cached)."""
    rubric = parse_rubric(rubric_data(version))
    if rubric.version != version:
        raise RubricError(f"rubric {version!r} declares version {rubric.version!r}")
    return rubric


def available_rubric_versions() -> list[str]:
    return sorted(p.stem for p in RUBRIC_DIR.glob("*.json"))

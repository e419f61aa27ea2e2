"""The CGPST rubric as data, and the ONE function that computes every total.

The rubric lives in a versioned JSON file next to this module. ``load_rubric``
validates it on load; ``sheet_totals`` turns a sheet's raw entries into the 23
dimension scores, six step totals and the overall score. Every page, export and
statistic calls ``sheet_totals``; nothing else adds scores up.

This module has no ORM imports: entries are plain dataclasses, so the same code
serves the web form, the workbook import and the JSON import.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

RUBRIC_DIR = Path(__file__).resolve().parent
DEFAULT_RUBRIC_VERSION = "cgpst-v1"
INVALID_PREFIX = "invalid:"


class RubricError(ValueError):
    """The rubric definition file is malformed."""


@dataclass(frozen=True)
class Level:
    score: int
    en: str
    zh: str

    def text(self, lang: str) -> str:
        return self.zh if lang.startswith("zh") else self.en


@dataclass(frozen=True)
class Label:
    en: str
    zh: str

    def text(self, lang: str) -> str:
        return self.zh if lang.startswith("zh") else self.en

    def __str__(self) -> str:  # templates fall back to English
        return self.en


@dataclass(frozen=True)
class ScoreSpec:
    """A scored control: an item-level score or a directly scored dimension."""

    key: str
    label: Label
    min: int
    max: int
    levels: tuple[Level, ...] = ()
    computed: str = ""
    integrity: bool = False
    description: Label | None = None
    step: int = 0

    @property
    def choices(self) -> range:
        return range(self.min, self.max + 1)

    @property
    def short_key(self) -> str:
        return self.key.split(".", 1)[-1]


@dataclass(frozen=True)
class InvalidType:
    key: str
    label: Label
    description: Label


@dataclass(frozen=True)
class TextSpec:
    key: str
    label: Label
    help: Label


@dataclass(frozen=True)
class Category:
    key: str
    zh: str
    description: Label

    def text(self, lang: str) -> str:
        return self.zh if lang.startswith("zh") else self.key


@dataclass(frozen=True)
class Step:
    number: int
    name: Label
    max: int
    kind: str  # "ideas" (steps 1, 3), "criteria" (step 4), "dimensions" (2, 5, 6)
    dimensions: tuple[ScoreSpec, ...]
    item_count: int = 0
    item_label: Label | None = None
    yes_description: Label | None = None
    invalid_types: tuple[InvalidType, ...] = ()
    item_scores: tuple[ScoreSpec, ...] = ()
    texts: tuple[TextSpec, ...] = ()
    shows_step2_texts: tuple[str, ...] = ()

    @property
    def has_items(self) -> bool:
        return self.kind in ("ideas", "criteria")

    @property
    def scored_dimensions(self) -> tuple[ScoreSpec, ...]:
        """Dimensions the rater scores directly (not computed from items)."""
        return tuple(d for d in self.dimensions if not d.computed)

    def item_score(self, key: str) -> ScoreSpec:
        for spec in self.item_scores:
            if spec.key == key:
                return spec
        raise KeyError(key)


@dataclass(frozen=True)
class Rubric:
    version: str
    title: Label
    max_total: int
    steps: tuple[Step, ...]
    categories: tuple[Category, ...]
    category_keys: tuple[str, ...]  # categories plus the Miscellaneous variants

    @property
    def dimensions(self) -> tuple[ScoreSpec, ...]:
        """All dimensions in canonical order (23 for cgpst-v1)."""
        return tuple(d for s in self.steps for d in s.dimensions)

    @property
    def dimension_keys(self) -> tuple[str, ...]:
        return tuple(d.key for d in self.dimensions)

    def step(self, number: int) -> Step:
        return self.steps[number - 1]

    def dimension(self, key: str) -> ScoreSpec:
        for d in self.dimensions:
            if d.key == key:
                return d
        raise KeyError(key)

    def category_label(self, key: str, lang: str) -> str:
        for c in self.categories:
            if c.key == key:
                return c.text(lang)
        if key.startswith("Miscellaneous"):
            base = next(c for c in self.categories if c.key == "Miscellaneous")
            return key if not lang.startswith("zh") else base.zh + key.removeprefix("Miscellaneous")
        return key


# --- loading and validation ---------------------------------------------------


def _label(raw, where: str) -> Label:
    if not isinstance(raw, dict) or not raw.get("en") or not raw.get("zh"):
        raise RubricError(f"{where}: needs an English and a Chinese text")
    return Label(en=str(raw["en"]), zh=str(raw["zh"]))


def _levels(raw: list, lo: int, hi: int, where: str) -> tuple[Level, ...]:
    levels = tuple(Level(int(lv["score"]), str(lv["en"]), str(lv["zh"])) for lv in raw)
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
        levels=_levels(raw.get("levels", []), lo, hi, where),
        computed=str(raw.get("computed", "")),
        integrity=bool(raw.get("integrity", False)),
        description=_label(raw["description"], f"{where} description") if "description" in raw else None,
        step=step,
    )


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


@cache
def load_rubric(version: str = DEFAULT_RUBRIC_VERSION) -> Rubric:
    """The rubric of that version from ``scoring/rubric/<version>.json`` (validated, cached)."""
    path = RUBRIC_DIR / f"{version}.json"
    if not path.is_file() or path.parent != RUBRIC_DIR:
        raise RubricError(f"no rubric file for version {version!r}")
    rubric = parse_rubric(json.loads(path.read_text(encoding="utf-8")))
    if rubric.version != version:
        raise RubricError(f"{path.name} declares version {rubric.version!r}")
    return rubric


def available_rubric_versions() -> list[str]:
    return sorted(p.stem for p in RUBRIC_DIR.glob("*.json"))


# --- raw entries and totals ---------------------------------------------------


@dataclass
class IdeaEntry:
    """One Step-1 or Step-3 item as the rater classified it."""

    category: str = ""
    invalid: str = ""
    elaboration: int | None = None
    originality: int | None = None
    comment: str = ""

    @property
    def is_yes(self) -> bool:
        return bool(self.category) and not self.invalid

    @property
    def classification(self) -> str:
        if self.invalid:
            return INVALID_PREFIX + self.invalid
        return self.category


@dataclass
class CriterionEntry:
    correctly_written: int | None = None
    relevance: int | None = None
    comment: str = ""


@dataclass
class SheetEntries:
    """Everything a rater enters on one sheet; totals are derived, never entered."""

    ideas: dict[int, list[IdeaEntry]] = field(default_factory=dict)
    criteria: list[CriterionEntry] = field(default_factory=list)
    dimensions: dict[str, int | None] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    comments: dict[int, str] = field(default_factory=dict)

    @classmethod
    def empty(cls, rubric: Rubric) -> SheetEntries:
        entries = cls()
        for step in rubric.steps:
            if step.kind == "ideas":
                entries.ideas[step.number] = [IdeaEntry() for _ in range(step.item_count)]
            elif step.kind == "criteria":
                entries.criteria = [CriterionEntry() for _ in range(step.item_count)]
            for d in step.scored_dimensions:
                entries.dimensions[d.key] = None
            for t in step.texts:
                entries.texts[t.key] = ""
        return entries


@dataclass(frozen=True)
class Missing:
    """Something the rater still has to enter before submitting."""

    step: int
    path: str  # the entry path (see scoring.entries) that needs a value
    message: str


@dataclass(frozen=True)
class SheetTotals:
    dimensions: dict[str, int]
    steps: dict[int, int]
    overall: int
    missing: tuple[Missing, ...]

    @property
    def complete(self) -> bool:
        return not self.missing

    def as_dict(self) -> dict:
        return {
            "dimensions": dict(self.dimensions),
            "steps": {str(k): v for k, v in self.steps.items()},
            "overall": self.overall,
            "complete": self.complete,
        }


def sheet_totals(entries: SheetEntries, rubric: Rubric) -> SheetTotals:
    """Compute all 23 dimensions, six step totals and the overall score.

    Unanswered controls count as 0 in the totals (so live totals grow as the
    rater works) and are listed in ``missing``.
    """
    dims: dict[str, int] = {}
    missing: list[Missing] = []
    for step in rubric.steps:
        n = step.number
        if step.kind == "ideas":
            items = entries.ideas.get(n, [])
            items = list(items) + [IdeaEntry() for _ in range(step.item_count - len(items))]
            yes = [it for it in items[: step.item_count] if it.is_yes]
            for pos, it in enumerate(items[: step.item_count], start=1):
                if not it.category and not it.invalid:
                    missing.append(Missing(n, f"items.{n}.{pos}.classification", "classification"))
                elif it.is_yes:
                    for key in ("elaboration", "originality"):
                        if getattr(it, key) is None:
                            missing.append(Missing(n, f"items.{n}.{pos}.{key}", key))
            values = {
                "fluency": len(yes),
                "flexibility": len({it.category for it in yes}),
                "elaboration": sum(it.elaboration or 0 for it in yes),
                "originality": sum(it.originality or 0 for it in yes),
            }
            for d in step.dimensions:
                dims[d.key] = values[d.computed]
        elif step.kind == "criteria":
            crits = list(entries.criteria) + [
                CriterionEntry() for _ in range(step.item_count - len(entries.criteria))
            ]
            for pos, c in enumerate(crits[: step.item_count], start=1):
                for spec in step.item_scores:
                    if getattr(c, spec.key) is None:
                        missing.append(Missing(n, f"items.{n}.{pos}.{spec.key}", spec.key))
            for d in step.dimensions:
                key = d.computed.removeprefix("sum:")
                dims[d.key] = sum(getattr(c, key) or 0 for c in crits[: step.item_count])
        else:
            for t in step.texts:
                if not (entries.texts.get(t.key) or "").strip():
                    missing.append(Missing(n, f"texts.{t.key}", t.key))
            for d in step.dimensions:
                value = entries.dimensions.get(d.key)
                if value is None:
                    missing.append(Missing(n, f"dims.{d.key}", d.short_key))
                dims[d.key] = value or 0
    steps = {s.number: sum(dims[d.key] for d in s.dimensions) for s in rubric.steps}
    return SheetTotals(dimensions=dims, steps=steps, overall=sum(steps.values()), missing=tuple(missing))


def normalized_vector(totals: SheetTotals, rubric: Rubric) -> list[float]:
    """The dimension scores divided by their maxima, in canonical order (the PCC input)."""
    return [totals.dimensions[d.key] / d.max for d in rubric.dimensions]


def integrity_score(totals: SheetTotals, rubric: Rubric) -> int:
    """Step-2 Integrity as reported in the result tables (CP + Stem&KVP + Purpose + FS parameters)."""
    return sum(totals.dimensions[d.key] for d in rubric.step(2).dimensions if d.integrity)

"""The CGPST rubric's types: steps, dimensions, item scores, labels and categories.

Plain frozen dataclasses (no ORM, no I/O); ``studies.rubric.loader`` builds them
from the versioned JSON file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

INVALID_PREFIX = "invalid:"
MAX_STEPS = 20  # the rubric format's limit (format/rubric-1.schema.json)


class RubricError(ValueError):
    """A rubric document is malformed; ``problems`` names every problem found."""

    def __init__(self, problems: str | list[str]):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("; ".join(self.problems))


# Where a level description comes from: the study's own scoring sheet, written for this
# platform (the sheet gives one description for some dimensions; listed in docs/raters.md), or
# edited by a study's admin (a rubric version of that study).
LEVEL_SOURCES = ("sheet", "platform", "edited")


@dataclass(frozen=True)
class Level:
    score: int
    en: str
    zh: str
    source: str = "sheet"

    def text(self, lang: str) -> str:
        return _in_language(self.en, self.zh, lang)


def _in_language(en: str, zh: str, lang: str) -> str:
    """The text in the page's language, else in the one the rubric has."""
    return (zh or en) if lang.startswith("zh") else (en or zh)


@dataclass(frozen=True)
class Label:
    en: str
    zh: str

    def text(self, lang: str) -> str:
        return _in_language(self.en, self.zh, lang)

    def __str__(self) -> str:  # templates fall back to English
        return self.en or self.zh


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
    guideline: Label | None = None  # the study's scoring guideline for this dimension
    # a dimension a sheet needs only when another has one of some scores: (its key, the scores)
    required_when: tuple[str, tuple[int, ...]] | None = None

    def applies(self, scores: Mapping[str, int | None]) -> bool:
        """Whether a sheet with these dimension scores needs this one (always, unless conditional)."""
        return self.required_when is None or scores.get(self.required_when[0]) in self.required_when[1]

    @property
    def levels_source(self) -> str:
        """``edited`` if a study's admin rewrote any level, else where the levels come from."""
        sources = {lv.source for lv in self.levels}
        return "edited" if "edited" in sources else (self.levels[0].source if self.levels else "")

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
        return (self.zh or self.key) if lang.startswith("zh") else self.key


@dataclass(frozen=True)
class CommentRule:
    """A step's comment box: its label (None: "Comment on <step>"), and when a sheet needs it:
    always (``required``), or when ``dimension`` (a dimension of the step) is scored one of
    ``values``; otherwise it is optional, as every comment of the CGPST sheet."""

    label: Label | None = None
    required: bool = False
    dimension: str = ""
    values: tuple[int, ...] = ()

    def needed(self, scores: dict[str, int | None]) -> bool:
        if self.required:
            return True
        return bool(self.dimension) and scores.get(self.dimension) in self.values


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
    guideline: Label | None = None  # the study's scoring guideline for the step
    comment: CommentRule = CommentRule()

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
class TextCheck:
    """A check on a response's text, shown to raters as a hint (``studies.rubric.checks``): its
    ``length`` in ``unit`` between ``min`` and ``max`` (None: no bound), or ``phrases``: none of
    ``absent`` and each of ``present`` in it. ``text``: which text (an answer's number), 0 every one."""

    key: str
    kind: str
    message: Label
    text: int = 0
    unit: str = "words"
    min: int | None = None
    max: int | None = None
    absent: tuple[str, ...] = ()
    present: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rubric:
    version: str
    title: Label
    max_total: int
    steps: tuple[Step, ...]
    categories: tuple[Category, ...]
    category_keys: tuple[str, ...]  # categories plus the Miscellaneous variants
    languages: tuple[str, ...] = ("en", "zh")  # the languages its texts are given in
    checks: tuple[TextCheck, ...] = ()  # hints on the response's texts

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

"""A sheet's raw entries and the ONE function that computes every total.

``sheet_totals`` turns a sheet's raw entries into the 23 dimension scores, six
step totals and the overall score. Every page, export and statistic calls it;
nothing else adds scores up. Entries are plain dataclasses, so the same code
serves the web form, the workbook import and the JSON import.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from studies.rubric.schema import INVALID_PREFIX, Rubric


class ScoredItem:
    """An item's scores by the rubric's keys: the CGPST sheet's in attributes of their own (columns
    of ``ItemScore``, ``COLUMNS``), any other name in ``other_scores`` (``ItemScore.other_scores``)."""

    COLUMNS: ClassVar[tuple[str, ...]] = ()
    other_scores: dict[str, int | None]

    def score(self, key: str) -> int | None:
        if key in self.COLUMNS:
            value: int | None = getattr(self, key)
            return value
        return self.other_scores.get(key)

    def score_set(self, key: str, value: int | None) -> None:
        if key in self.COLUMNS:
            setattr(self, key, value)
        else:
            self.other_scores[key] = value

    def scores_made(self) -> list[str]:
        """The keys of the scores this item holds."""
        return [key for key in (*self.COLUMNS, *self.other_scores) if self.score(key) is not None]


@dataclass
class IdeaEntry(ScoredItem):
    """One item of an ideas step (CGPST's Step 1 or 3) as the rater classified and scored it."""

    COLUMNS: ClassVar[tuple[str, ...]] = ("elaboration", "originality")
    category: str = ""
    invalid: str = ""
    elaboration: int | None = None
    originality: int | None = None
    comment: str = ""
    other_scores: dict[str, int | None] = field(default_factory=dict)

    @property
    def is_yes(self) -> bool:
        return bool(self.category) and not self.invalid

    @property
    def classification(self) -> str:
        if self.invalid:
            return INVALID_PREFIX + self.invalid
        return self.category


@dataclass
class CriterionEntry(ScoredItem):
    """One item of a criteria step (CGPST's Step 4): its item scores and a comment."""

    COLUMNS: ClassVar[tuple[str, ...]] = ("correctly_written", "relevance")
    correctly_written: int | None = None
    relevance: int | None = None
    comment: str = ""
    other_scores: dict[str, int | None] = field(default_factory=dict)


@dataclass
class SheetEntries:
    """Everything a rater enters on one sheet; totals are derived, never entered."""

    ideas: dict[int, list[IdeaEntry]] = field(default_factory=dict)
    criteria: list[CriterionEntry] = field(default_factory=list)
    dimensions: dict[str, int | None] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    comments: dict[int, str] = field(default_factory=dict)
    # every dimension entered as a score of its own, none computed from items: a sheet
    # imported from the study's Excel layout, which holds the dimension scores alone
    dimension_level: bool = False

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
    rater works) and are listed in ``missing``. A sheet of dimension scores alone
    (``dimension_level``) takes every dimension as entered.
    """
    dims: dict[str, int] = {}
    missing: list[Missing] = []
    for step in rubric.steps:
        n = step.number
        if entries.dimension_level:
            for d in step.dimensions:
                value = entries.dimensions.get(d.key)
                if value is None:
                    missing.append(Missing(n, f"dims.{d.key}", d.short_key))
                dims[d.key] = value or 0
        elif step.kind == "ideas":
            items = entries.ideas.get(n, [])
            items = list(items) + [IdeaEntry() for _ in range(step.item_count - len(items))]
            yes = [it for it in items[: step.item_count] if it.is_yes]
            for pos, it in enumerate(items[: step.item_count], start=1):
                if not it.category and not it.invalid:
                    missing.append(Missing(n, f"items.{n}.{pos}.classification", "classification"))
                elif it.is_yes:
                    for spec in step.item_scores:
                        if it.score(spec.key) is None:
                            missing.append(Missing(n, f"items.{n}.{pos}.{spec.key}", spec.key))
            for d in step.dimensions:
                dims[d.key] = idea_value(d.computed, yes)
        elif step.kind == "criteria":
            crits = list(entries.criteria) + [
                CriterionEntry() for _ in range(step.item_count - len(entries.criteria))
            ]
            for pos, c in enumerate(crits[: step.item_count], start=1):
                for spec in step.item_scores:
                    if c.score(spec.key) is None:
                        missing.append(Missing(n, f"items.{n}.{pos}.{spec.key}", spec.key))
            for d in step.dimensions:
                key = d.computed.removeprefix("sum:")
                dims[d.key] = sum(c.score(key) or 0 for c in crits[: step.item_count])
        else:
            for t in step.texts:
                if not (entries.texts.get(t.key) or "").strip():
                    missing.append(Missing(n, f"texts.{t.key}", t.key))
            for d in step.dimensions:
                if not d.applies(entries.dimensions):  # needed only for other scores: counts 0
                    dims[d.key] = 0
                    continue
                value = entries.dimensions.get(d.key)
                if value is None:
                    missing.append(Missing(n, f"dims.{d.key}", d.short_key))
                dims[d.key] = value or 0
    for step in rubric.steps:  # a comment the rubric asks for (always, or for some scores)
        scores = {d.key: entries.dimensions.get(d.key) for d in step.scored_dimensions}
        if step.comment.needed(scores) and not (entries.comments.get(step.number) or "").strip():
            missing.append(Missing(step.number, f"comments.{step.number}", "comment"))
    steps = {s.number: sum(dims[d.key] for d in s.dimensions) for s in rubric.steps}
    return SheetTotals(dimensions=dims, steps=steps, overall=sum(steps.values()), missing=tuple(missing))


def idea_value(computed: str, yes: list[IdeaEntry]) -> int:
    """A computed dimension of an ideas step from its Yes items: ``fluency`` (how many),
    ``flexibility`` (their distinct categories), ``sum:<item score>`` (that score added up; CGPST's
    ``elaboration`` and ``originality`` name their sums)."""
    if computed == "fluency":
        return len(yes)
    if computed == "flexibility":
        return len({it.category for it in yes})
    key = computed.removeprefix("sum:")
    return sum(it.score(key) or 0 for it in yes)


def normalized_vector(totals: SheetTotals, rubric: Rubric) -> list[float]:
    """The dimension scores divided by their maxima, in canonical order (the PCC input)."""
    return [totals.dimensions[d.key] / d.max for d in rubric.dimensions]


# The maxima the release's Extract_Scores.py divides by where they differ from the sheet's:
# steps_dimensions_max_wo_integrity (line 73) gives Purpose 2, the sheet's scale is 0-3.
RELEASE_SCRIPT_MAXIMA = {"s2.purpose": 2}


def release_script_vector(vector: list[float], rubric: Rubric) -> list[float]:
    """A normalized vector (``normalized_vector``) re-normalized as the release's script does:
    each score divided by the script's maximum instead of the sheet's."""
    return [
        value * d.max / RELEASE_SCRIPT_MAXIMA.get(d.key, d.max)
        for value, d in zip(vector, rubric.dimensions, strict=True)
    ]


def integrity_sum(dimensions: Mapping[str, float], rubric: Rubric) -> float:
    """Step-2 Integrity of any dimension scores: a sheet's integers or a final score's means."""
    return sum(dimensions[d.key] for d in rubric.dimensions if d.integrity)


def integrity_score(totals: SheetTotals, rubric: Rubric) -> int:
    """Step-2 Integrity as reported in the result tables (CP + Stem&KVP + Purpose + FS parameters)."""
    return sum(totals.dimensions[d.key] for d in rubric.dimensions if d.integrity)

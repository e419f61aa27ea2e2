"""Reliability per rubric dimension and per step (pure statistics, no ORM; beyond the study):
which parts of the rubric the raters do not agree on.

For each of the 23 dimensions: the ICC (pingouin, the study's headline form, with its 95%
interval) of that dimension's normalised scores across responses, and Krippendorff's alpha at the
ordinal level (a dimension's points are ordered categories) with its bootstrap interval. For each
step: the same on each rater's mean of the step's dimensions, alpha at the interval level.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from statistics import fmean

from calibration.reliability import AlphaResult, alpha
from calibration.statistics import icc

DIMENSION, STEP = "dimension", "step"


@dataclass(frozen=True)
class PartReliability:
    part: str  # a dimension's key, or "Step N"
    kind: str  # DIMENSION or STEP
    step: int
    icc: float | None
    icc_low: float | None
    icc_high: float | None
    icc_reason: str
    alpha: AlphaResult


def _part(
    part: str, kind: str, step: int, rows: list[tuple[Hashable, Hashable, float]], form: str, level: str
) -> PartReliability:
    result = icc(rows)
    headline = result.form(form)
    return PartReliability(
        part=part,
        kind=kind,
        step=step,
        icc=headline.icc if headline is not None else None,
        icc_low=headline.ci_low if headline is not None else None,
        icc_high=headline.ci_high if headline is not None else None,
        icc_reason=result.reason,
        alpha=alpha(rows, level=level),
    )


def parts_reliability(
    rows: Iterable[tuple[Hashable, Hashable, str, float]], *, steps: Mapping[str, int], form: str
) -> list[PartReliability]:
    """(response, rater slot, dimension key, normalised score) rows; ``steps``: each
    dimension's step, in the rubric's order. The dimensions first (rubric order), then the steps."""
    by_dimension: dict[str, list[tuple[Hashable, Hashable, float]]] = defaultdict(list)
    by_step: dict[tuple[int, Hashable, Hashable], list[float]] = defaultdict(list)
    for response, slot, dimension, value in rows:
        by_dimension[dimension].append((response, slot, value))
        by_step[(steps[dimension], response, slot)].append(value)
    parts = [
        _part(dimension, DIMENSION, step, by_dimension[dimension], form, "ordinal")
        for dimension, step in steps.items()
        if by_dimension.get(dimension)
    ]
    step_rows: dict[int, list[tuple[Hashable, Hashable, float]]] = defaultdict(list)
    for (step, response, slot), values in by_step.items():
        step_rows[step].append((response, slot, fmean(values)))
    parts += [
        _part(f"Step {step}", STEP, step, step_rows[step], form, "interval") for step in sorted(step_rows)
    ]
    return parts

"""The judge's calibration against the humans (beyond the study): for each score level the humans
gave (their final score, rounded to the level), the judge's mean score on those responses with a 95%
t-interval. A judge on the diagonal agrees level by level; one above it is kinder. Pure, no ORM."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from calibration.statistics import mean_ci95


@dataclass(frozen=True)
class CalibrationPoint:
    level: float  # the humans' score level
    n: int
    judge_mean: float
    low: float | None
    high: float | None


def calibration_curve(*, pairs: Iterable[tuple[float, float]], step: float = 1.0) -> list[CalibrationPoint]:
    """``pairs``: (the humans' final score, the judge's score) per response; levels ``step`` apart."""
    if step <= 0:
        raise ValueError("the levels need a positive step")
    by_level: dict[float, list[float]] = defaultdict(list)
    for human, judge in pairs:
        by_level[round(human / step) * step].append(judge)
    points = []
    for level in sorted(by_level):
        scores = by_level[level]
        low, high = mean_ci95(scores)
        points.append(CalibrationPoint(level, len(scores), sum(scores) / len(scores), low, high))
    return points

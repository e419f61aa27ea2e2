"""A trainee's sheet against a training response's reference: pure statistics (no ORM).

The reference is the mean of one or more expert sheets, so its values may be halves.
The PCC is the study's own measure (``calibration.statistics.pcc`` on the 23
dimensions, each divided by its maximum), compared with the qualification threshold.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from calibration.statistics import pcc
from studies.rubric import Rubric, ScoreSpec

MISSED_MOST = 3  # dimensions whose guidelines the feedback shows


@dataclass(frozen=True)
class DimensionGap:
    spec: ScoreSpec
    step: int
    yours: float
    reference: float

    @property
    def difference(self) -> float:
        return self.yours - self.reference

    @property
    def relative(self) -> float:
        """The gap as a fraction of the dimension's maximum (what the PCC sees)."""
        return abs(self.difference) / self.spec.max


@dataclass(frozen=True)
class Feedback:
    pcc: float | None
    reason: str  # why the PCC is undefined, if it is
    threshold: float
    steps: list[tuple[int, float, float]]  # (step, yours, reference)
    overall: tuple[float, float]
    dimensions: list[DimensionGap]
    missed_most: list[DimensionGap]

    @property
    def passed(self) -> bool:
        return self.pcc is not None and self.pcc >= self.threshold


def normalized(dimensions: Mapping[str, float], rubric: Rubric) -> list[float]:
    return [float(dimensions[d.key]) / d.max for d in rubric.dimensions]


def reference_mean(totals: list[Mapping], rubric: Rubric) -> dict:
    """The reference of several expert sheets (their ``totals``): the mean of each
    dimension, step total and overall score (halves are kept, as in final scores)."""
    if not totals:
        raise ValueError("a reference needs at least one sheet")
    n = len(totals)
    return {
        "dimensions": {d.key: sum(t["dimensions"][d.key] for t in totals) / n for d in rubric.dimensions},
        "steps": {str(s.number): sum(t["steps"][str(s.number)] for t in totals) / n for s in rubric.steps},
        "overall": sum(t["overall"] for t in totals) / n,
    }


def training_pcc(*, totals: Mapping, reference: Mapping, rubric: Rubric) -> tuple[float | None, str]:
    result = pcc(normalized(totals["dimensions"], rubric), normalized(reference["dimensions"], rubric))
    return result.r, result.reason


def sheet_feedback(*, totals: Mapping, reference: Mapping, rubric: Rubric, threshold: float) -> Feedback:
    """Totals beside the reference, every dimension's difference, the PCC, and the
    dimensions missed most (largest gap relative to the maximum, ties in sheet order)."""
    r, reason = training_pcc(totals=totals, reference=reference, rubric=rubric)
    gaps = [
        DimensionGap(
            spec=d,
            step=step.number,
            yours=float(totals["dimensions"][d.key]),
            reference=float(reference["dimensions"][d.key]),
        )
        for step in rubric.steps
        for d in step.dimensions
    ]
    ranked = sorted((g for g in gaps if g.difference), key=lambda g: -g.relative)
    return Feedback(
        pcc=r,
        reason=reason,
        threshold=threshold,
        steps=[
            (s.number, float(totals["steps"][str(s.number)]), float(reference["steps"][str(s.number)]))
            for s in rubric.steps
        ],
        overall=(float(totals["overall"]), float(reference["overall"])),
        dimensions=gaps,
        missed_most=ranked[:MISSED_MOST],
    )


def qualification_count(*, passed_responses: set[int], required: int) -> bool:
    """Qualified once sheets on ``required`` different training responses passed."""
    return len(passed_responses) >= max(1, required)

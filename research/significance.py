"""Significance as the paper reports it (pure: no ORM).

- Table 4: mean final score per model x condition x scenario, a two-sided Wilcoxon
  signed-rank test per model over the scenarios (scipy's defaults). The paper prints
  only ``**`` (p < 0.01); ``*`` (p < 0.05) is an option, labelled as ours.
- Figure 3 per step: the same test per step and model on the step totals.

numpy and scipy are imported inside the tests only.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields
from statistics import fmean
from typing import TYPE_CHECKING

from research.records import ScoreRecord, mean_defined, scenario_order

if TYPE_CHECKING:
    import numpy as np

MARKS_PAPER = "paper"  # as the paper prints Table 4: ** p < 0.01 only
MARKS_BOTH = "both"  # also * p < 0.05
MARK_MODES = (MARKS_PAPER, MARKS_BOTH)


def significance_mark(p: float | None, marks: str = MARKS_PAPER) -> str:
    """``**`` for p < 0.01 (the only mark the paper prints); with ``marks="both"`` also ``*`` for p < 0.05."""
    if p is None or math.isnan(p):
        return ""
    if p < 0.01:
        return "**"
    if p < 0.05 and marks == MARKS_BOTH:
        return "*"
    return ""


@dataclass(frozen=True)
class PairTest:
    model: str
    model_number: str
    n: int
    mean_a: float | None
    mean_b: float | None
    statistic: float | None
    p_value: float | None
    note: str = ""
    marks: str = MARKS_PAPER

    @property
    def mark(self) -> str:
        return significance_mark(self.p_value, self.marks)


@dataclass
class OverallRow:
    model: str
    model_number: str
    condition: str
    scores: list[float | None]
    average: float | None
    mark: str = ""
    # the higher average of the two conditions compared, for this model: the paper bolds it,
    # and a significance mark stands beside it (the direction of the difference)
    higher: bool = False
    # beyond the study: the mean fair score (normalized, rater effects removed) of the row's responses
    fair: float | None = None


@dataclass
class OverallTable:
    scenarios: list[str]
    pair: tuple[str, str]
    rows: list[OverallRow] = field(default_factory=list)
    tests: list[PairTest] = field(default_factory=list)
    marks: str = MARKS_PAPER


def wilcoxon_test(a: Sequence[float], b: Sequence[float]) -> tuple[float | None, float | None, str]:
    """Two-sided Wilcoxon signed-rank test of paired samples (scipy's default zero handling)."""
    if len(a) == 0:
        return None, None, "no paired scenarios"
    if all(x == y for x, y in zip(a, b, strict=True)):
        return None, None, "all differences are zero"
    import numpy as np
    from scipy.stats import wilcoxon

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
            nonzero = np.abs(d[d != 0])
            if len(d) <= PERMUTATION_MAX_N and (
                len(nonzero) < len(d) or len(np.unique(nonzero)) < len(nonzero)
            ):
                statistic, p = _signed_rank_permutation_test(d)
            else:
                result = wilcoxon(a, b, alternative="two-sided")
                statistic, p = float(result.statistic), float(result.pvalue)
    except ValueError as exc:
        return None, None, str(exc)
    return statistic, (None if math.isnan(p) else p), ""


def pair_test(
    *, model: str, model_number: str, a: Sequence[float], b: Sequence[float], marks: str
) -> PairTest:
    """The test of one model's paired means, ``a`` (first condition) against ``b`` (second),
    one pair a scenario: Table 4 tests the overall scores, Figure 3 each step's totals."""
    statistic, p, note = wilcoxon_test(a, b)
    return PairTest(
        model=model,
        model_number=model_number,
        n=len(a),
        mean_a=fmean(a) if a else None,
        mean_b=fmean(b) if b else None,
        statistic=statistic,
        p_value=p,
        note=note,
        marks=marks,
    )


# scipy's wilcoxon (method "auto") turns to an exact permutation test over the 2**n sign
# flips when the differences have ties or zeros and n <= 13; it evaluates its rank
# statistic once per flip (1,024 calls for ten scenarios), slow for every model. The same
# test with the statistic vectorized over all flips at once gives the same numbers
# (tests/research/test_wilcoxon_test.py compares them with scipy's wilcoxon).
PERMUTATION_MAX_N = 13


def _positive_rank_sum(d: np.ndarray, axis: int = -1) -> np.ndarray:
    """Sum of the ranks of |d| (zeros dropped, ties averaged) over the positive differences."""
    import numpy as np
    from scipy.stats import rankdata

    d = np.moveaxis(d, axis, -1)
    ranks = rankdata(np.where(d == 0, np.inf, np.abs(d)), axis=-1)  # zeros rank last, unused
    return np.where(d > 0, ranks, 0.0).sum(axis=-1)


def _signed_rank_permutation_test(d: np.ndarray) -> tuple[float, float]:
    from scipy.stats import permutation_test

    r_plus = float(_positive_rank_sum(d))
    r_minus = float(_positive_rank_sum(-d))
    result = permutation_test(
        (d,),
        _positive_rank_sum,
        permutation_type="samples",
        vectorized=True,
        n_resamples=9999,
        alternative="two-sided",
        axis=-1,
    )
    return min(r_plus, r_minus), float(result.pvalue)


def overall_table(
    records: Sequence[ScoreRecord],
    *,
    pair: tuple[str, str],
    conditions: Sequence[str] | None = None,
    marks: str = MARKS_PAPER,
) -> OverallTable:
    """Mean final score per model x condition x scenario; a test per model of ``pair``
    (first condition vs second) over the scenarios where both have a score. The mark goes
    on the higher average of the two (the paper marks TeamLLM's, which is the higher wherever
    its test is significant): a significant decline is marked on the baseline's, not shown
    as an improvement."""
    cells: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    names: dict[str, str] = {}
    for r in records:
        cells[(r.model_number, r.condition, r.scenario)].append(r.overall)
        names[r.model_number] = r.model
    scenarios = sorted({k[2] for k in cells}, key=scenario_order)
    shown = list(conditions) if conditions else sorted({k[1] for k in cells})
    for letter in pair:
        if letter not in shown:
            shown.append(letter)
    table = OverallTable(scenarios=scenarios, pair=pair, marks=marks)
    for number in sorted(names):
        means = {
            (cond, sc): fmean(cells[(number, cond, sc)])
            for cond in shown
            for sc in scenarios
            if cells.get((number, cond, sc))
        }
        a_sc = [sc for sc in scenarios if (pair[0], sc) in means and (pair[1], sc) in means]
        a = [means[(pair[0], sc)] for sc in a_sc]
        b = [means[(pair[1], sc)] for sc in a_sc]
        test = pair_test(model=names[number], model_number=number, a=a, b=b, marks=marks)
        table.tests.append(test)
        higher = _higher(pair, test)
        for cond in shown:
            scores = [means.get((cond, sc)) for sc in scenarios]
            if all(s is None for s in scores):
                continue
            table.rows.append(
                OverallRow(
                    model=names[number],
                    model_number=number,
                    condition=cond,
                    scores=scores,
                    average=mean_defined(scores),
                    mark=test.mark if cond == higher else "",
                    higher=cond == higher,
                )
            )
    return table


def _higher(pair: tuple[str, str], test: PairTest) -> str | None:
    """The condition of ``pair`` with the higher mean over the paired scenarios (None on a tie)."""
    if test.mean_a is None or test.mean_b is None or test.mean_a == test.mean_b:
        return None
    return pair[0] if test.mean_a > test.mean_b else pair[1]


def default_pair(letters: Iterable[str]) -> tuple[str, str] | None:
    """TeamLLM (A) vs baseline (B) when both are there, else the first two conditions."""
    present = sorted(set(letters))
    if {"A", "B"} <= set(present):
        return ("A", "B")
    return (present[0], present[1]) if len(present) >= 2 else None


@dataclass(frozen=True)
class StepTest:
    """Figure 3's comparison of one step for one model: ``pair`` over the scenarios."""

    step: int
    model: str
    model_number: str
    n: int
    mean_a: float | None
    mean_b: float | None
    p_value: float | None
    note: str
    mark: str

    @classmethod
    def of(cls, step: int, test: PairTest) -> StepTest:
        """The step's row from the test of its step totals: each field but the step is the
        test's own (its statistic is not shown)."""
        return cls(step=step, **{f.name: getattr(test, f.name) for f in fields(cls) if f.name != "step"})


def step_tests(
    records: Sequence[ScoreRecord], *, pair: tuple[str, str], steps: Sequence[int], marks: str = MARKS_PAPER
) -> list[StepTest]:
    """Per step and model: the mean step total per scenario under each condition of ``pair``,
    and the two-sided Wilcoxon signed-rank test over the scenarios where both have one."""
    cells: dict[tuple[str, str, str, int], list[float]] = defaultdict(list)
    names: dict[str, str] = {}
    for r in records:
        names[r.model_number] = r.model
        for step in steps:
            if (value := r.steps.get(step)) is not None:
                cells[(r.model_number, r.condition, r.scenario, step)].append(value)
    scenarios = sorted({k[2] for k in cells}, key=scenario_order)
    out = []
    for step in steps:
        for number in sorted(names):
            both = [
                sc
                for sc in scenarios
                if cells.get((number, pair[0], sc, step)) and cells.get((number, pair[1], sc, step))
            ]
            a = [fmean(cells[(number, pair[0], sc, step)]) for sc in both]
            b = [fmean(cells[(number, pair[1], sc, step)]) for sc in both]
            test = pair_test(model=names[number], model_number=number, a=a, b=b, marks=marks)
            out.append(StepTest.of(step, test))
    return out

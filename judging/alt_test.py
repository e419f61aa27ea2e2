"""The alternative annotator test (beyond the study): may the judge stand in for a human rater?
Calderon, Reichart & Dror (2025), ACL, "The Alternative Annotator Test for LLM-as-a-Judge"; pure
statistics, no ORM.

Leave one rater out at a time. On each response that rater scored, compare how well the judge and
the left-out rater each agree with the response's other raters (negative root mean square
difference); the judge wins the response when it agrees at least as well, the rater when the rater
does. ``rho`` (the advantage probability) is the share of responses the judge wins. The judge beats
the rater when a one-sided t-test rejects "the rater wins more often than the judge by ``epsilon``
or more" (``epsilon``: what the judge's lower cost is worth; 0.2 for expert raters, the paper's rule
of thumb), with the Benjamini-Yekutieli correction over the raters (statsmodels). The judge passes
when it beats at least half of the raters it was compared with (the winning rate).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import TypeVar

Response = TypeVar("Response", bound=Hashable)  # however the caller names its responses
EXPERT_EPSILON = 0.2
MIN_RESPONSES = 30  # per rater: the t-test's normal approximation (the paper's minimum)


@dataclass(frozen=True)
class RaterComparison:
    rater: str
    responses: int
    judge_wins: float  # rho: the share of the rater's responses the judge wins
    rater_wins: float
    p_value: float | None
    judge_beats_rater: bool  # after the correction over the raters


@dataclass(frozen=True)
class AltTestResult:
    epsilon: float
    comparisons: list[RaterComparison]  # the raters with enough responses
    skipped: list[str]  # raters with too few responses scored with another rater
    winning_rate: float | None  # the share of compared raters the judge beats
    advantage_probability: float | None  # the mean rho over the compared raters
    passed: bool


def _rmse(value: float, others: list[float]) -> float:
    return (sum((value - other) ** 2 for other in others) / len(others)) ** 0.5


def alt_test(
    *,
    raters: Mapping[str, Mapping[Response, float]],
    judge: Mapping[Response, float],
    epsilon: float = EXPERT_EPSILON,
    alpha: float = 0.05,
    min_responses: int = MIN_RESPONSES,
) -> AltTestResult:
    """``raters[rater][response]``: the raters' scores; ``judge[response]``: the judge's."""
    import numpy as np
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    rows: list[tuple[str, int, float, float, float]] = []
    skipped: list[str] = []
    for rater, scores in raters.items():
        wins = []  # (judge wins, rater wins) per response
        for response, own in scores.items():
            others = [s[response] for r, s in raters.items() if r != rater and response in s]
            if not others or response not in judge:
                continue
            judge_error, rater_error = _rmse(judge[response], others), _rmse(own, others)
            wins.append((float(judge_error <= rater_error), float(rater_error <= judge_error)))
        if len(wins) < min_responses:
            skipped.append(rater)
            continue
        judge_wins, rater_wins = (np.array(side) for side in zip(*wins, strict=True))
        difference = rater_wins - judge_wins
        if np.ptp(difference) == 0:  # no spread: the t-test is undefined, the answer is not
            p_value = 0.0 if difference[0] < epsilon else 1.0
        else:
            p_value = float(stats.ttest_1samp(difference, epsilon, alternative="less").pvalue)
        rows.append((rater, len(wins), float(judge_wins.mean()), float(rater_wins.mean()), p_value))
    if not rows:
        return AltTestResult(epsilon, [], skipped, None, None, False)
    rejected = multipletests([row[4] for row in rows], alpha=alpha, method="fdr_by")[0]
    comparisons = [
        RaterComparison(rater, n, judge_rho, rater_rho, p, bool(beats))
        for (rater, n, judge_rho, rater_rho, p), beats in zip(rows, rejected, strict=True)
    ]
    winning_rate = sum(c.judge_beats_rater for c in comparisons) / len(comparisons)
    advantage = sum(c.judge_wins for c in comparisons) / len(comparisons)
    return AltTestResult(epsilon, comparisons, skipped, winning_rate, advantage, winning_rate >= 0.5)

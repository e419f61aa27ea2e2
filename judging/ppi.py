"""Prediction-powered estimates of a mean (beyond the study): the judge scores every response, the
humans a part of them, and the two together estimate the humans' mean over all with an interval
narrower than the humans' own where the judge tracks them (pure statistics, no ORM).

PPI++ (Angelopoulos, Duchi & Zrnic 2023, arXiv:2311.01453; PPI: Angelopoulos et al. 2023, Science
382), for a mean: with ``n`` responses scored by humans (``Y``) and the judge (``f``), and ``N``
scored by the judge alone (``f~``),

    theta = mean(Y) + lambda * (mean(f~) - mean(f))
    var   = Var(Y - lambda f) / n + lambda^2 Var(f~) / N
    lambda = Cov(Y, f) / ((1 + n / N) Var(f, f~ pooled)), clipped to [0, 1]

and the 95% interval theta +- z * sqrt(var). lambda = 1 is the original PPI; lambda = 0 the humans'
mean alone, which is what a judge that does not track the humans gets. The effective number of
human-scored responses is ``n * Var(Y) / (n * var)``: how many the humans alone would need for the
same width. Written from the paper's formulas (15 lines) rather than the authors' ``ppi-python``,
which installs numba, scikit-learn and a dataset downloader; tests check coverage by simulation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054  # the normal quantile of 0.975


@dataclass(frozen=True)
class PpiEstimate:
    n_human: int  # responses scored by humans (and the judge)
    n_judge_only: int  # responses scored by the judge alone
    mean: float | None  # the prediction-powered estimate of the humans' mean over all
    low: float | None
    high: float | None
    weight: float | None  # lambda: how much the judge's responses count (0: not at all)
    human_mean: float | None  # the humans' own mean and interval, on their n alone
    human_low: float | None
    human_high: float | None
    judge_mean: float | None  # the judge's mean over every response (biased where the judge is)
    effective_n: float | None  # human-scored responses the estimate is worth


def ppi_mean(
    *,
    human: Sequence[float],
    judge_on_human: Sequence[float],
    judge_only: Sequence[float],
    tuned: bool = True,
) -> PpiEstimate:
    """``human[i]`` and ``judge_on_human[i]`` score the same response; ``judge_only`` the responses
    no human scored. ``tuned=False``: the original PPI (lambda = 1). Undefined (None) under two
    human-scored responses or without a judge-only one."""
    import numpy as np

    y, f, f_tilde = (np.asarray(values, dtype=float) for values in (human, judge_on_human, judge_only))
    if len(y) != len(f):
        raise ValueError("each human score needs the judge's score of the same response")
    n, big_n = len(y), len(f_tilde)
    judge_mean = float(np.concatenate([f, f_tilde]).mean()) if n + big_n else None
    if n < 2:
        return PpiEstimate(n, big_n, None, None, None, None, None, None, None, judge_mean, None)
    human_mean, human_var = float(y.mean()), float(y.var(ddof=1)) / n
    human_half = Z95 * human_var**0.5
    if big_n < 1:
        return PpiEstimate(
            n, big_n, None, None, None, None, human_mean, human_mean - human_half, human_mean + human_half,
            judge_mean, None,
        )  # fmt: skip
    weight = 1.0
    if tuned:
        pooled = float(np.concatenate([f, f_tilde]).var(ddof=1)) if n + big_n > 1 else 0.0
        covariance = float(np.cov(y, f, ddof=1)[0, 1])
        weight = 0.0 if pooled <= 0 else min(max(covariance / ((1 + n / big_n) * pooled), 0.0), 1.0)
    mean = human_mean + weight * (float(f_tilde.mean()) - float(f.mean()))
    judge_var = float(f_tilde.var(ddof=1)) if big_n > 1 else 0.0
    variance = float((y - weight * f).var(ddof=1)) / n + weight**2 * judge_var / big_n
    half = Z95 * variance**0.5
    effective = n * human_var / variance if variance > 0 else None
    return PpiEstimate(
        n, big_n, mean, mean - half, mean + half, weight, human_mean, human_mean - human_half,
        human_mean + human_half, judge_mean, effective,
    )  # fmt: skip

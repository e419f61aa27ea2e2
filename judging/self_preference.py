"""Self-preference as a test (beyond the study): does the judge favour responses of its own model
(or provider family) more than the humans do? Pure statistics, no ORM.

Each response gives the judge's score minus the humans' final score (normalised as the caller
chooses). The statistic is the mean of that difference on the judge's own responses minus its mean
on the others; its p-value is a two-sided permutation test (``scipy.stats.permutation_test``,
independent samples, seeded), and its effect size Hedges' g (pooled standard deviation, small-sample
corrected: Hedges 1981)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

DRAWS = 9999


@dataclass(frozen=True)
class SelfPreference:
    n_own: int
    n_others: int
    own_mean: float | None  # judge minus humans on the judge's own responses
    others_mean: float | None
    difference: float | None  # own minus others: > 0, the judge favours its own
    p_value: float | None
    hedges_g: float | None


def self_preference_test(
    *, own: Sequence[float], others: Sequence[float], draws: int = DRAWS, seed: int = 39
) -> SelfPreference:
    """``own``/``others``: judge-minus-humans differences on the judge's own model's responses and on
    the other models'. Undefined under two of either."""
    import numpy as np
    from scipy import stats

    a, b = np.asarray(own, dtype=float), np.asarray(others, dtype=float)
    if len(a) < 2 or len(b) < 2:
        means = (float(a.mean()) if len(a) else None, float(b.mean()) if len(b) else None)
        return SelfPreference(len(a), len(b), *means, None, None, None)

    def statistic(x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
        return np.mean(x, axis=axis) - np.mean(y, axis=axis)

    test = stats.permutation_test(
        (a, b), statistic, permutation_type="independent", alternative="two-sided", n_resamples=draws,
        vectorized=True, random_state=np.random.default_rng(seed),
    )  # fmt: skip
    pooled = (((len(a) - 1) * a.var(ddof=1) + (len(b) - 1) * b.var(ddof=1)) / (len(a) + len(b) - 2)) ** 0.5
    difference = float(a.mean() - b.mean())
    correction = 1 - 3 / (4 * (len(a) + len(b)) - 9)
    g = difference / pooled * correction if pooled > 0 else None
    return SelfPreference(len(a), len(b), float(a.mean()), float(b.mean()), difference, float(test.pvalue), g)

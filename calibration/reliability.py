"""Agreement beyond the study (pure statistics, no ORM): each is labelled "beyond the study" in
docs/researchers.md with its formula, its reference (../shared/reference/methods.md) and when
to use it. The study's own PCC and ICC stay in ``calibration.statistics``.

* Krippendorff's alpha (Hayes & Krippendorff 2007), interval or ordinal (both in closed form over
  the units, so a bootstrap draw is one array operation; the tests compare with the
  ``krippendorff`` package), on the long rows the ICC uses, with a seeded percentile bootstrap
  over units.
* Lin's concordance correlation coefficient (Lin 1989) per response, on the same normalised
  vectors as the PCC: it falls when one rater is uniformly harsher, where r does not.
* The level-disagreement routing criterion (CCC below a threshold, or totals further apart than
  k points): off unless a study turns it on.

Degenerate inputs never raise: they give a result with ``reason`` set.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy loads where a function needs it: web processes never import it
    import numpy as np


REASON_FEW_UNITS = "fewer than 2 units with two values"
REASON_NO_VARIANCE = "no variance"
REASON_LENGTH_MISMATCH = "vectors differ in length"
REASON_EMPTY = "no values"

ALPHA_LEVELS = ("interval", "ordinal")
# Reproducible intervals: the same data give the same bounds on every page, export and call.
BOOTSTRAP_SEED = 20070101  # Hayes & Krippendorff (2007)
BOOTSTRAP_DRAWS = 1000


@dataclass(frozen=True)
class AlphaResult:
    alpha: float | None
    ci_low: float | None
    ci_high: float | None
    units: int  # units with at least two values (pairable)
    level: str
    reason: str = ""


def _matrix(rows: Iterable[tuple[Hashable, Hashable, float]]) -> tuple[np.ndarray, int]:
    """Raters x units, NaN where a rater gave no value; and the number of pairable units."""
    import numpy as np

    units: dict[Hashable, int] = {}
    raters: dict[Hashable, int] = {}
    cells: list[tuple[int, int, float]] = []
    for unit, rater, value in rows:
        if value is None or not math.isfinite(float(value)):
            continue
        cells.append(
            (raters.setdefault(rater, len(raters)), units.setdefault(unit, len(units)), float(value))
        )
    matrix = np.full((len(raters), len(units)), np.nan)
    for r, u, value in cells:
        matrix[r, u] = value
    pairable = int((np.sum(~np.isnan(matrix), axis=0) >= 2).sum()) if cells else 0
    return matrix, pairable


def _ordinal_alphas(counts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Ordinal alpha for each row of ``weights`` (draws x units: how often each unit is taken) of
    units whose value counts are ``counts`` (units x values; a "unit" may stand for every unit with
    the same counts, weighed together). Krippendorff's coincidence matrix is a sum over units,
    o_ck = sum_u w_u (x_uc x_uk - [c = k] x_uc) / (m_u - 1) with x_u the unit's value counts, so
    every bootstrap draw is one matrix product; the ordinal metric then comes from each draw's own
    marginals n_c: delta_ck = (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2, and
    alpha = 1 - (n - 1) sum o_ck delta_ck / sum n_c n_k delta_ck. The tests compare it with the
    ``krippendorff`` package."""
    import numpy as np

    v = counts.shape[1]
    pairs = counts.sum(axis=1) - 1
    per_unit = counts[:, :, None] * counts[:, None, :] - np.einsum("uc,ck->uck", counts, np.eye(v))
    per_unit /= pairs[:, None, None]
    coincidences = (weights @ per_unit.reshape(len(counts), v * v)).reshape(-1, v, v)
    marginals = coincidences.sum(axis=2)  # draws x v
    n = marginals.sum(axis=1)
    cumulative = np.cumsum(marginals, axis=1)
    low = np.minimum.outer(np.arange(v), np.arange(v))
    high = np.maximum.outer(np.arange(v), np.arange(v))
    before_low = np.where(low > 0, cumulative[:, np.maximum(low - 1, 0)], 0.0)
    between = cumulative[:, high] - before_low
    delta = (between - (marginals[:, :, None] + marginals[:, None, :]) / 2) ** 2
    observed = (coincidences * delta).sum(axis=(1, 2))
    expected = (marginals[:, :, None] * marginals[:, None, :] * delta).sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected > 1e-15, 1 - (n - 1) * observed / expected, np.nan)


def _interval_alphas(count: np.ndarray, total: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """Interval alpha from each unit's count, sum and sum of squares; the last axis runs over units,
    so a (draws x units) stack gives one alpha per draw. alpha = 1 - D_o / D_e with
    D_o = (1/n) sum_u 2 m_u SS_u / (m_u - 1) and D_e = 2 n var(pooled) / (n - 1): Krippendorff's
    coincidence sums for the squared difference, in closed form (the ``krippendorff`` package
    computes the same over the value domain, slowly for continuous values; the tests compare)."""
    import numpy as np

    n = count.sum(axis=-1)
    within = squares - total**2 / count
    observed = (2 * count * within / (count - 1)).sum(axis=-1) / n
    pooled_variance = squares.sum(axis=-1) / n - (total.sum(axis=-1) / n) ** 2
    expected = 2 * n * pooled_variance / (n - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected > 1e-15, 1 - observed / expected, np.nan)


def alpha(
    rows: Iterable[tuple[Hashable, Hashable, float]],
    *,
    level: str = "interval",
    draws: int = BOOTSTRAP_DRAWS,
    seed: int = BOOTSTRAP_SEED,
) -> AlphaResult:
    """Krippendorff's alpha of (unit, rater, value) rows, with a 95% percentile interval from
    ``draws`` bootstrap resamples of the units (seeded: the same rows, the same bounds)."""
    import numpy as np

    if level not in ALPHA_LEVELS:
        raise ValueError(f"level must be one of {ALPHA_LEVELS}")
    matrix, pairable = _matrix(rows)
    if pairable < 2:
        return AlphaResult(None, None, None, pairable, level, REASON_FEW_UNITS)
    kept = matrix[:, np.sum(~np.isnan(matrix), axis=0) >= 2]
    count = np.sum(~np.isnan(kept), axis=0).astype(float)
    total = np.nansum(kept, axis=0)
    squares = np.nansum(kept**2, axis=0)
    if level == "interval":
        first = float(_interval_alphas(count, total, squares))
    else:
        # units with the same value counts weigh alike: a draw counts how often it took each kind
        # (with two raters, at most values x (values + 1) / 2 kinds, whatever the number of units)
        values = np.unique(kept[~np.isnan(kept)])
        counts = np.stack([np.sum(kept == value, axis=0) for value in values], axis=1).astype(float)
        kinds, of_unit = np.unique(counts, axis=0, return_inverse=True)
        of_unit = of_unit.reshape(-1)
        first = float(
            _ordinal_alphas(kinds, np.bincount(of_unit, minlength=len(kinds))[None, :].astype(float))[0]
        )
    point = first if math.isfinite(first) else None
    if point is None:
        return AlphaResult(None, None, None, pairable, level, REASON_NO_VARIANCE)
    low = high = None
    if draws > 0:
        rng = np.random.default_rng(seed)
        n = kept.shape[1]
        picks = rng.integers(0, n, size=(draws, n))
        if level == "interval":
            samples = _interval_alphas(count[picks], total[picks], squares[picks])
        else:
            # each draw's count of each kind, in one count over all draws (draw d's kinds offset by d)
            flat = (np.arange(draws)[:, None] * len(kinds) + of_unit[picks]).ravel()
            taken = np.bincount(flat, minlength=draws * len(kinds)).reshape(draws, len(kinds)).astype(float)
            samples = _ordinal_alphas(kinds, taken)
        finite = samples[np.isfinite(samples)]
        if finite.size:
            low, high = (float(v) for v in np.percentile(finite, [2.5, 97.5]))
    return AlphaResult(point, low, high, pairable, level)


@dataclass(frozen=True)
class CccResult:
    ccc: float | None
    pcc: float | None
    bias_factor: float | None  # C_b = CCC / r: 1 when the raters agree in level and scale
    mean_difference: float | None  # mean(b) - mean(a)
    reason: str = ""


def ccc(vector_a: Sequence[float], vector_b: Sequence[float]) -> CccResult:
    """Lin's CCC = 2 cov(a, b) / (var a + var b + (mean a - mean b)^2), population moments."""
    import numpy as np

    if len(vector_a) != len(vector_b):
        return CccResult(None, None, None, None, REASON_LENGTH_MISMATCH)
    if not vector_a:
        return CccResult(None, None, None, None, REASON_EMPTY)
    a = np.asarray(vector_a, dtype=float)
    b = np.asarray(vector_b, dtype=float)
    difference = float(b.mean() - a.mean())
    var_a, var_b = float(a.var()), float(b.var())
    denominator = var_a + var_b + difference**2
    if denominator == 0:
        return CccResult(None, None, None, 0.0, REASON_NO_VARIANCE)
    covariance = float(((a - a.mean()) * (b - b.mean())).mean())
    value = 2 * covariance / denominator
    r = covariance / math.sqrt(var_a * var_b) if var_a > 0 and var_b > 0 else None
    factor = value / r if r is not None and r != 0 else None
    return CccResult(value, r, factor, difference)


@dataclass(frozen=True)
class LevelRule:
    """The optional second routing criterion: a response whose raters differ in level is sent to a
    third rater too. Either part may be off (None)."""

    ccc_below: float | None = None
    total_difference_over: float | None = None

    @property
    def on(self) -> bool:
        return self.ccc_below is not None or self.total_difference_over is not None


def level_disagreement(
    *, rule: LevelRule, ccc_value: float | None, total_a: float | None, total_b: float | None
) -> list[str]:
    """Why a response is routed by ``rule`` (empty: it is not). Reasons are stable codes."""
    reasons = []
    if rule.ccc_below is not None and ccc_value is not None and ccc_value < rule.ccc_below:
        reasons.append("ccc")
    if (
        rule.total_difference_over is not None
        and total_a is not None
        and total_b is not None
        and abs(total_a - total_b) > rule.total_difference_over
    ):
        reasons.append("total")
    return reasons

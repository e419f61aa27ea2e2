"""A G-study and D-study of a study's scores (pure statistics, no ORM; beyond the study,
Brennan 2001): how much of the score variance is the systems compared (a model under a strategy:
the object of measurement), the scenarios, the response (a system on a scenario), the raters and
the rest; and what a design with n_s scenarios and n_r raters per response would give.

Model, fitted by REML through Henderson's mixed-model equations (dense Cholesky, L-BFGS-B on the
log variances; ``statsmodels``' MixedLM fits the same model, the tests compare, but takes
minutes on a 600-response study with crossed raters):
    score = mu + system + scenario + response + rater + residual
on the values the ICC uses (a rater's mean normalised score of a response). In the D-study each
response has its own raters (as in the study: a pair per response), so rater variance counts in
the relative error as well as the absolute one:
    relative error  delta = s2_response / n_s + (s2_rater + s2_residual) / (n_s * n_r)
    absolute error  Delta = s2_scenario / n_s + delta
    generalizability E rho^2 = s2_system / (s2_system + delta)
    dependability    Phi     = s2_system / (s2_system + Delta)
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the heavy libraries load where a function needs them: web processes never
    import numpy as np
    import pandas as pd


FACETS = ("system", "scenario", "response", "rater")
REASON_FEW_SCORES = "fewer than 2 raters on 3 responses"
REASON_NOT_FITTED = "the model did not converge"
PLAN_RATERS = (1, 2, 3, 4)
PLAN_SCENARIOS = (1, 3, 5, 10, 20)


@dataclass(frozen=True)
class GStudy:
    """Variance components (``residual`` included), by facet; a facet with a single level (one
    system, one scenario) has none and is left out of the model."""

    components: dict[str, float] = field(default_factory=dict)
    scores: int = 0
    reason: str = ""

    @property
    def total(self) -> float:
        return sum(self.components.values())

    def share(self, facet: str) -> float | None:
        total = self.total
        return self.components.get(facet, 0.0) / total if total > 0 else None


@dataclass(frozen=True)
class DStudy:
    scenarios: int
    raters: int
    generalizability: float | None
    dependability: float | None


def _design(frame: pd.DataFrame, facets: Sequence[str]) -> tuple[np.ndarray, list[int]]:
    """Z, one indicator column per level of each facet, and how many columns each facet has."""
    import numpy as np
    import pandas as pd

    blocks, sizes = [], []
    for facet in facets:
        codes, levels = pd.factorize(frame[facet])
        block = np.zeros((len(frame), len(levels)))
        block[np.arange(len(frame)), codes] = 1.0
        blocks.append(block)
        sizes.append(len(levels))
    return (np.hstack(blocks) if blocks else np.zeros((len(frame), 0))), sizes


def _reml_deviance(log_params: np.ndarray, parts: tuple, sizes: list[int], n: int) -> float:
    """-2 REML log-likelihood (up to a constant) of y = mu + Z u + e, u_k ~ N(0, s2_k I), through
    Henderson's mixed-model equations: log|V| + log|X'V^-1 X| = n log s2_e + sum q_k log s2_k
    + log|C|, and y'Py = (y'y - b' W'y) / s2_e with C b = W'y, W = [1 Z]. The last facet (the one
    with the most levels) has a diagonal block in C (a score belongs to one of its levels): it is
    eliminated by its Schur complement, so each evaluation costs a small dense factorization
    whatever the number of responses."""
    import numpy as np
    from scipy import linalg

    a0, groups, wy1, yy, size = parts
    variances = np.exp(log_params)
    residual = variances[-1]
    ratios = residual / variances[:-1]
    # the last facet's levels grouped by how many scores each has: its diagonal block is
    # count + ratio, one value per group, so its elimination is a few small products
    schur = a0.copy()
    rhs = wy1.copy()
    quadratic_last = 0.0
    log_d = 0.0
    for count, levels, outer, v, ss in groups:
        d = count + ratios[-1]
        schur -= outer / d
        rhs -= v / d
        quadratic_last += ss / d
        log_d += levels * np.log(d)
    schur[np.diag_indices_from(schur)] += np.concatenate([[0.0], np.repeat(ratios[:-1], sizes[:-1])])
    try:
        chol = linalg.cho_factor(schur)
    except linalg.LinAlgError:
        return float("inf")
    b1 = linalg.cho_solve(chol, rhs)
    # b'W'y = b1.wy1 + sum over the last facet's levels of (wy2 - B'b1) wy2 / d
    fitted = (
        b1 @ wy1 + quadratic_last - sum((b1 @ v) / (count + ratios[-1]) for count, _l, _o, v, _s in groups)
    )
    quadratic = (yy - fitted) / residual
    log_c = 2 * np.log(np.diag(chol[0])).sum() + log_d - size * np.log(residual)
    log_g = float(np.dot(sizes, np.log(variances[:-1])))
    return float(n * np.log(residual) + log_g + log_c + quadratic)


def g_study(rows: Iterable[tuple[Hashable, Hashable, Hashable, Hashable, float]]) -> GStudy:
    """Variance components of (system, scenario, response, rater, score) rows by REML."""
    import numpy as np
    import pandas as pd
    from scipy import optimize

    frame = pd.DataFrame(list(rows), columns=[*FACETS, "score"])
    frame["score"] = frame["score"].astype(float)
    frame = frame[np.isfinite(frame["score"])]
    per_response = frame.groupby("response")["rater"].nunique()
    if len(frame) == 0 or (per_response >= 2).sum() < 3:
        return GStudy(scores=len(frame), reason=REASON_FEW_SCORES)
    facets = [facet for facet in FACETS if frame[facet].nunique() > 1]
    # a response is one system on one scenario: with one scenario per system (or one system per
    # scenario) it cannot be told apart from the system (or the scenario), which then carries it
    if (
        frame.groupby("system")["scenario"].nunique().max() < 2
        or frame.groupby("scenario")["system"].nunique().max() < 2
    ):
        facets = [facet for facet in facets if facet != "response"]
    # the facet with the most levels last: _reml_deviance eliminates it
    facets.sort(key=lambda facet: frame[facet].nunique())
    y = frame["score"].to_numpy()
    z, sizes = _design(frame, facets[:-1])
    last_codes, last_levels = pd.factorize(frame[facets[-1]])
    sizes.append(len(last_levels))
    # On the log scale every variance stays positive; a floor far below the data's variance
    # lets a component that is not there go to (practically) zero.
    scale = max(float(y.var()), 1e-12)
    start = np.full(len(facets) + 1, np.log(scale / (len(facets) + 1)))
    floor = np.log(scale * 1e-9)
    # what does not change with the variances: W = [1, Z_others | Z_last]'s blocks, Z_last never
    # built (a column per response): its products are sums over each level's scores
    w1 = np.hstack([np.ones((len(y), 1)), z])
    q = len(last_levels)
    bm = np.zeros((w1.shape[1], q))
    np.add.at(bm.T, last_codes, w1)
    counts = np.bincount(last_codes, minlength=q).astype(float)
    wy2 = np.bincount(last_codes, weights=y, minlength=q)
    groups = []
    for count in np.unique(counts):
        pick = counts == count
        block = bm[:, pick]
        groups.append(
            (float(count), int(pick.sum()), block @ block.T, block @ wy2[pick], float(wy2[pick] @ wy2[pick]))
        )
    parts = (w1.T @ w1, groups, w1.T @ y, float(y @ y), w1.shape[1] + q)
    fit = optimize.minimize(
        _reml_deviance,
        start,
        args=(parts, sizes, len(y)),
        method="L-BFGS-B",
        bounds=[(floor, np.log(scale * 100))] * len(start),
        # tight: the same data in another order must give the same components to 4 digits
        options={"ftol": 1e-14, "gtol": 1e-9, "maxiter": 1000},
    )
    if not np.all(np.isfinite(fit.x)) or not math.isfinite(fit.fun):
        return GStudy(scores=len(frame), reason=REASON_NOT_FITTED)
    variances = np.exp(fit.x)
    fitted = {
        facet: float(v) if v > scale * 1e-6 else 0.0 for facet, v in zip(facets, variances, strict=False)
    }
    components = {facet: fitted.get(facet, 0.0) for facet in FACETS}
    components["residual"] = float(variances[-1])
    return GStudy(components=components, scores=len(frame))


def d_study(g: GStudy, *, scenarios: int, raters: int) -> DStudy:
    """The coefficients of a design with ``scenarios`` scenarios per system and ``raters`` raters
    per response (formulas in the module's docstring)."""
    c = g.components
    if not c or scenarios < 1 or raters < 1:
        return DStudy(scenarios, raters, None, None)
    system = c.get("system", 0.0)
    relative = c.get("response", 0.0) / scenarios + (c.get("rater", 0.0) + c.get("residual", 0.0)) / (
        scenarios * raters
    )
    absolute = c.get("scenario", 0.0) / scenarios + relative
    rho = system / (system + relative) if system + relative > 0 else None
    phi = system / (system + absolute) if system + absolute > 0 else None
    return DStudy(scenarios, raters, rho, phi)


def d_study_plan(
    g: GStudy, *, raters: Sequence[int] = PLAN_RATERS, scenarios: Sequence[int] = PLAN_SCENARIOS
) -> list[DStudy]:
    """The planning table: every pair of a number of raters and a number of scenarios."""
    return [d_study(g, scenarios=s, raters=r) for r in raters for s in scenarios]

"""Rater severity, rater x dimension bias and fair scores (pure statistics, no ORM; beyond the
study: a linear many-facet model standing in for Linacre's many-facet Rasch model, as
../shared/reference/methods.md allows).

Model, by least squares on a rater's normalised dimension scores:
    score(response, rater, dimension) = mu + response + rater + dimension + residual,
rater effects summing to zero (the average rater is 0; below 0: harsher). The response and
dimension effects are absorbed by taking deviations from their means (Frisch-Waugh-Lovell), so
the fit costs a regression on the raters alone whatever the number of responses; the standard
errors are the full model's (its degrees of freedom count the absorbed effects).

* **fair score** of a response: the mean of its scores with each rater's effect taken out, on
  the normalised scale (what the average rater would have given);
* **bias** of a rater on a dimension: the mean residual of that rater's scores on it, with a
  z value (mean residual / its standard error); flagged at |z| >= ``BIAS_Z`` on at least
  ``BIAS_MIN_SCORES`` scores.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the heavy libraries load where a function needs them: web processes never
    import numpy as np
    import pandas as pd


BIAS_Z = 2.0
BIAS_MIN_SCORES = 5
REASON_FEW_RATERS = "fewer than 2 raters sharing responses"


@dataclass(frozen=True)
class RaterEffect:
    rater: Hashable
    effect: float  # on the normalised scale; below 0: harsher than the average rater
    se: float | None
    scores: int


@dataclass(frozen=True)
class Bias:
    rater: Hashable
    dimension: Hashable
    bias: float
    z: float | None
    scores: int

    @property
    def flagged(self) -> bool:
        return self.z is not None and abs(self.z) >= BIAS_Z and self.scores >= BIAS_MIN_SCORES


@dataclass(frozen=True)
class Severity:
    raters: list[RaterEffect] = field(default_factory=list)
    fair_scores: dict[Hashable, float] = field(default_factory=dict)
    biases: list[Bias] = field(default_factory=list)
    reason: str = ""


def _demeaned(frame: pd.DataFrame, columns: list[str], by: list[str]) -> pd.DataFrame:
    """Deviations from the means of ``by``'s groups, iterated to convergence (two crossed sets of
    fixed effects: the alternating projections converge to the joint one)."""
    import numpy as np

    out = frame[columns].astype(float).copy()
    for _ in range(200):
        before = out.to_numpy().copy()
        for key in by:
            out = out - out.groupby(frame[key]).transform("mean")
        if np.abs(out.to_numpy() - before).max() < 1e-12:
            break
    return out


def _coded(raters: list[Hashable], of: pd.Series) -> np.ndarray:
    """Sum-to-zero coding: column j is 1 for rater j, -1 for the last rater, 0 otherwise."""
    import numpy as np

    codes = of.map({rater: j for j, rater in enumerate(raters)}).to_numpy()
    x = np.zeros((len(codes), len(raters) - 1))
    rows = np.flatnonzero(codes < len(raters) - 1)
    x[rows, codes[rows]] = 1.0
    x[codes == len(raters) - 1, :] = -1.0
    return x


def _balanced(frame: pd.DataFrame) -> bool:
    """Every sheet (a response's scores by one rater) has every dimension once."""
    sizes = frame.groupby(["response", "rater"]).size()
    return (
        bool((sizes == frame["dimension"].nunique()).all())
        and not frame.duplicated(["response", "rater", "dimension"]).any()
    )


def _fit_rows(frame: pd.DataFrame, raters: list[Hashable]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rater effects (sum-to-zero, all but the last), X'X and the residuals, on every score."""
    import numpy as np
    import pandas as pd

    columns = [f"r{j}" for j in range(len(raters) - 1)]
    design = pd.DataFrame(_coded(raters, frame["rater"]), columns=columns, index=frame.index)
    projected = _demeaned(pd.concat([frame, design], axis=1), ["score", *columns], ["response", "dimension"])
    x, y = projected[columns].to_numpy(), projected["score"].to_numpy()
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    return beta, x.T @ x, y - x @ beta


def _fit_sheets(frame: pd.DataFrame, raters: list[Hashable]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The same as ``_fit_rows`` where every sheet has every dimension once (the study's sheets):
    the dimension effects are then orthogonal to the sheets', so the raters' are fitted on the
    sheets' means, deviations from their response's (one pass, exact), and each score's residual
    is its deviation from its response's and its dimension's means less the sheet's fitted effect:
    the cost grows with the sheets, not with scores x raters (10x the paper's study: 11.5 s to 0.9 s)."""
    import numpy as np
    import pandas as pd

    grand = frame["score"].mean()
    y_within = (
        frame["score"]
        - frame.groupby("response")["score"].transform("mean")
        - frame.groupby("dimension")["score"].transform("mean")
        + grand
    ).to_numpy()
    sheets = frame.groupby(["response", "rater"], sort=False)["score"].mean().reset_index()
    x = _coded(raters, sheets["rater"])
    x = x - _group_means(x, sheets["response"])
    y = (sheets["score"] - sheets.groupby("response")["score"].transform("mean")).to_numpy()
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    at = pd.MultiIndex.from_frame(sheets[["response", "rater"]]).get_indexer(
        pd.MultiIndex.from_frame(frame[["response", "rater"]])
    )
    fitted = (x @ beta)[at]
    dimensions = frame["dimension"].nunique()
    return beta, dimensions * (x.T @ x), y_within - fitted


def _group_means(x: np.ndarray, groups: pd.Series) -> np.ndarray:
    """Each row's group mean of every column of ``x``."""
    import pandas as pd

    return pd.DataFrame(x).groupby(groups.to_numpy()).transform("mean").to_numpy()


def rater_severity(rows: Iterable[tuple[Hashable, Hashable, Hashable, float]]) -> Severity:
    """Fit the model to (response, rater, dimension, normalised score) rows."""
    import numpy as np
    import pandas as pd

    frame = pd.DataFrame(list(rows), columns=["response", "rater", "dimension", "score"])
    frame["score"] = frame["score"].astype(float)
    frame = frame[np.isfinite(frame["score"])].reset_index(drop=True)
    raters = sorted(frame["rater"].unique(), key=str)
    shared = frame.groupby("response")["rater"].nunique()
    if len(raters) < 2 or (shared >= 2).sum() == 0:
        return Severity(reason=REASON_FEW_RATERS)
    beta, xtx, residual = (_fit_sheets if _balanced(frame) else _fit_rows)(frame, raters)
    absorbed = frame["response"].nunique() + frame["dimension"].nunique() - 1
    dof = len(frame) - absorbed - len(beta)
    sigma2 = float(residual @ residual) / dof if dof > 0 else math.nan
    cov = sigma2 * np.linalg.pinv(xtx)
    effects = np.append(beta, -beta.sum())
    contrast = np.vstack([np.eye(len(beta)), -np.ones(len(beta))])
    ses = np.sqrt(np.clip(np.einsum("ij,jk,ik->i", contrast, cov, contrast), 0, None))
    counts = frame["rater"].value_counts()
    rater_effects = [
        RaterEffect(rater, float(e), float(se) if math.isfinite(se) else None, int(counts[rater]))
        for rater, e, se in zip(raters, effects, ses, strict=True)
    ]
    effect_of = dict(zip(raters, effects, strict=True))
    adjusted = frame["score"] - frame["rater"].map(effect_of)
    fair = adjusted.groupby(frame["response"]).mean()
    frame["residual"] = residual
    sd = math.sqrt(sigma2) if math.isfinite(sigma2) else math.nan
    biases = []
    for (rater, dimension), cell in frame.groupby(["rater", "dimension"])["residual"]:
        mean = float(cell.mean())
        se = sd / math.sqrt(len(cell)) if len(cell) and math.isfinite(sd) and sd > 0 else None
        biases.append(Bias(rater, dimension, mean, mean / se if se else None, len(cell)))
    return Severity(
        raters=rater_effects,
        fair_scores={key: float(value) for key, value in fair.items()},
        biases=biases,
    )

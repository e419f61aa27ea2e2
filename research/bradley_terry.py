"""Bradley-Terry scores with percentile-bootstrap intervals for pairwise preference studies (pure: no ORM).

A *system* (a model x condition, named by a string) is compared with another on the same prompt: a
rater prefers the left text (A), the right one (B), or calls a tie. The model (Bradley & Terry 1952)
gives each system a log-strength beta, and P(left preferred) = 1 / (1 + exp(-(beta_left - beta_right))).
Following Chatbot Arena (Chiang et al. 2024) it is fitted as a logistic regression without intercept on
one design row per comparison (+1 for the left system, -1 for the right one), a tie counting as half a
win for each side (the outcome 0.5 in the cross-entropy), and reported on the Elo-like scale
1000 + 400 * log10(e) * beta, beta centred to mean 0. The interval is the percentile bootstrap over the
comparisons (resampled with replacement). See docs/researchers.md, "Bradley-Terry scores".

numpy and scipy are imported inside the functions (the project's rule for heavy libraries).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

# The plain maximum-likelihood estimate does not exist when a system never loses (or never wins): its
# beta runs off to +inf (-inf). A ridge penalty (RIDGE / 2) * sum(beta ** 2) on the log-likelihood, a
# Gaussian prior of standard deviation 1 / sqrt(RIDGE) = 10 on each beta (odds of e**10, about 22,000 to
# one), keeps every score finite while it moves what the data do determine very little: two systems
# with 30 wins against 10 get a difference of 190.7 points instead of 400 * log10(3) = 190.8. Its pull
# shrinks as comparisons accumulate (it does not grow with their number). Because the log-likelihood's
# gradient sums to zero over the systems, the penalised optimum has mean beta 0 by itself.
RIDGE = 0.01

NEWTON_STEP_TOL = 1e-6  # the fit's convergence test (see _fit)

ELO_BASE = 1000.0
ELO_SCALE = 400.0  # points per factor of 10 in the odds: 400 * log10(e) points per unit of beta

OUTCOMES = (0.0, 0.5, 1.0)  # right preferred, tie, left preferred


@dataclass(frozen=True)
class Comparison:
    """One judgement: ``outcome`` 1.0 when ``left`` was preferred, 0.0 when ``right`` was, 0.5 a tie."""

    left: str
    right: str
    outcome: float


@dataclass(frozen=True)
class BtScore:
    """A system's score and its bootstrap interval (``low`` .. ``high``) on the Elo-like scale.

    ``wins`` and ``losses`` count a tie as half a win and half a loss (as the model does), so
    ``wins + losses == comparisons``; ``ties`` is the number of ties among them."""

    system: str
    score: float
    low: float
    high: float
    wins: float
    losses: float
    ties: int
    comparisons: int
    # systems linked by a chain of comparisons share a group (1, 2, ...): scores compare only within one
    group: int


def pair_outcome(*, preference: float, low: float, high: float) -> float:
    """The outcome for the LEFT (A) system of a preference on the scale ``low`` .. ``high``, whose low
    end means A better and high end B better (e.g. 1 = A much better ... 5 = B much better): below the
    midpoint 1.0, above it 0.0, at the midpoint (a tie) 0.5."""
    if not (math.isfinite(low) and math.isfinite(high)) or low >= high:
        raise ValueError(f"the scale needs finite ends with low < high, got {low} .. {high}")
    if not (low <= preference <= high):  # also rejects NaN
        raise ValueError(f"preference {preference} is outside the scale {low} .. {high}")
    midpoint = (low + high) / 2
    if preference < midpoint:
        return 1.0
    if preference > midpoint:
        return 0.0
    return 0.5


def comparison_groups(comparisons: Sequence[Comparison]) -> dict[str, int]:
    """Each system's group: two systems share one when a chain of comparisons links them (the connected
    components of the comparison graph, by scipy). Groups are numbered 1, 2, ... in the order of their
    first system by name. One group: every score compares with every other. More: the data say nothing
    about how one group stands against another (each group's scores centre on 1000 by themselves)."""
    systems = sorted({c.left for c in comparisons} | {c.right for c in comparisons})
    if not systems:
        return {}
    import numpy as np
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    index = {name: i for i, name in enumerate(systems)}
    left = np.array([index[c.left] for c in comparisons], dtype=np.intp)
    right = np.array([index[c.right] for c in comparisons], dtype=np.intp)
    graph = coo_matrix((np.ones(len(comparisons)), (left, right)), shape=(len(systems), len(systems)))
    _, labels = connected_components(graph, directed=False)
    # scipy labels components in the order it meets them (by the lowest index, i.e. the first name)
    number: dict[int, int] = {}
    for label in labels:
        number.setdefault(int(label), len(number) + 1)
    return {name: number[int(labels[j])] for j, name in enumerate(systems)}


def _validate(comparisons: Sequence[Comparison], rounds: int, level: float) -> None:
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds must be a positive integer, got {rounds!r}")
    if not (0.0 < level < 1.0):
        raise ValueError(f"level must lie strictly between 0 and 1, got {level!r}")
    for i, c in enumerate(comparisons):
        if not isinstance(c.left, str) or not isinstance(c.right, str) or not c.left or not c.right:
            raise ValueError(
                f"comparison {i}: systems must be non-empty strings, got {c.left!r}, {c.right!r}"
            )
        if c.left == c.right:
            raise ValueError(f"comparison {i}: a system cannot be compared with itself ({c.left!r})")
        if c.outcome not in OUTCOMES:
            raise ValueError(f"comparison {i}: outcome must be 0, 0.5 or 1, got {c.outcome!r}")


def _fit(
    left: NDArray[np.intp],
    right: NDArray[np.intp],
    outcome: NDArray[np.float64],
    weight: NDArray[np.float64],
    n_systems: int,
    start: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """The penalised maximum-likelihood log-strengths (natural log, mean 0); ``weight`` counts each
    distinct (left, right, outcome) row. ``start`` only shortens the search (the optimum is unique)."""
    import numpy as np
    from scipy.optimize import minimize
    from scipy.special import expit, log_expit

    def objective(beta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        x = beta[left] - beta[right]
        nll = -float(np.sum(weight * (outcome * log_expit(x) + (1.0 - outcome) * log_expit(-x))))
        residual = weight * (expit(x) - outcome)  # d nll / d x
        grad = RIDGE * beta
        np.add.at(grad, left, residual)
        np.subtract.at(grad, right, residual)
        return nll + 0.5 * RIDGE * float(beta @ beta), grad

    def hessian(beta: NDArray[np.float64]) -> NDArray[np.float64]:
        x = beta[left] - beta[right]
        p = expit(x)
        c = weight * p * (1.0 - p)
        h = RIDGE * np.eye(n_systems)
        np.add.at(h, (left, left), c)
        np.add.at(h, (right, right), c)
        np.subtract.at(h, (left, right), c)
        np.subtract.at(h, (right, left), c)
        return h

    # Strictly convex (the ridge): one optimum, which scipy's exact trust-region Newton method finds.
    # Near it the change in the log-likelihood drowns in rounding before the gradient reaches gtol and
    # the method may stop saying so; the fit is accepted when the Newton step left from where it
    # stopped is below NEWTON_STEP_TOL (in beta; 400 * log10(e) * 1e-6 < 0.001 points).
    result = minimize(
        objective,
        np.zeros(n_systems) if start is None else start,
        jac=True,
        hess=hessian,
        method="trust-exact",
        options={"gtol": 1e-9, "maxiter": 200},
    )
    x = np.asarray(result.x, dtype=np.float64)
    step = np.linalg.solve(hessian(x), objective(x)[1])
    if not np.all(np.isfinite(x)) or float(np.max(np.abs(step))) > NEWTON_STEP_TOL:
        raise RuntimeError(f"the Bradley-Terry fit did not converge: {result.message}")
    centred: NDArray[np.float64] = x - float(np.mean(x))
    return centred


def _elo(beta: NDArray[np.float64]) -> NDArray[np.float64]:
    """The Chatbot Arena scale: 1000 + 400 * log10(e) * beta."""
    scaled: NDArray[np.float64] = ELO_BASE + (ELO_SCALE / math.log(10.0)) * beta
    return scaled


def bradley_terry_scores(
    *, comparisons: Sequence[Comparison], rounds: int = 1000, level: float = 0.95, seed: int = 0
) -> list[BtScore]:
    """Bradley-Terry scores of every system in ``comparisons``, highest first (ties of score by name).

    The score is the penalised MLE on all comparisons (``RIDGE``); ``low`` and ``high`` are the
    (1 - level) / 2 and (1 + level) / 2 percentiles of the scores refitted on ``rounds`` resamples of the
    comparisons, drawn with replacement by ``numpy.random.default_rng(seed)`` (the same input and seed
    give the same result). A resample that leaves a system out says nothing about it and is skipped for
    that system. Scores of systems never linked by a chain of comparisons are not comparable: each
    score names its ``group`` (``comparison_groups``). Fewer than two systems: an empty list."""
    _validate(comparisons, rounds, level)
    systems = sorted({c.left for c in comparisons} | {c.right for c in comparisons})
    if len(systems) < 2:
        return []
    import numpy as np

    index = {name: i for i, name in enumerate(systems)}
    n_systems = len(systems)
    rows = np.array(
        [(index[c.left], index[c.right], round(2 * c.outcome)) for c in comparisons], dtype=np.intp
    )
    # the distinct (left, right, outcome) rows and, per comparison, which one it is
    distinct, row_of = np.unique(rows, axis=0, return_inverse=True)
    row_of = row_of.reshape(-1)
    left, right = distinct[:, 0], distinct[:, 1]
    outcome = distinct[:, 2].astype(np.float64) / 2.0
    n_rows = len(distinct)

    counts = np.bincount(row_of, minlength=n_rows).astype(np.float64)
    beta = _fit(left, right, outcome, counts, n_systems)
    score = _elo(beta)

    rng = np.random.default_rng(seed)
    boot = np.full((rounds, n_systems), np.nan)
    n = len(comparisons)
    for r in range(rounds):
        weight = np.bincount(row_of[rng.integers(0, n, size=n)], minlength=n_rows).astype(np.float64)
        used = weight > 0
        present = np.zeros(n_systems, dtype=bool)
        present[left[used]] = True
        present[right[used]] = True
        # an absent system sits at beta 0 (the ridge alone) and the others' mean is still 0
        boot[r, present] = _elo(
            _fit(left[used], right[used], outcome[used], weight[used], n_systems, start=beta)
        )[present]

    lows = np.full(n_systems, np.nan)
    highs = np.full(n_systems, np.nan)
    for j in range(n_systems):
        values = boot[:, j][~np.isnan(boot[:, j])]
        if values.size:  # empty only when every resample left the system out
            lows[j], highs[j] = np.percentile(values, [100 * (1 - level) / 2, 100 * (1 + level) / 2])

    wins = np.zeros(n_systems)
    ties = np.zeros(n_systems, dtype=np.intp)
    played = np.zeros(n_systems, dtype=np.intp)
    for c in comparisons:
        i, k = index[c.left], index[c.right]
        wins[i] += c.outcome
        wins[k] += 1.0 - c.outcome
        played[i] += 1
        played[k] += 1
        if c.outcome == 0.5:
            ties[i] += 1
            ties[k] += 1

    groups = comparison_groups(comparisons)
    result = [
        BtScore(
            system=name,
            score=float(score[j]),
            low=float(lows[j]),
            high=float(highs[j]),
            wins=float(wins[j]),
            losses=float(played[j] - wins[j]),
            ties=int(ties[j]),
            comparisons=int(played[j]),
            group=groups[name],
        )
        for j, name in enumerate(systems)
    ]
    return sorted(result, key=lambda s: (-s.score, s.system))

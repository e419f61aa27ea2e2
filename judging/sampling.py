"""Where the next human hours go (beyond the study): a plan of which responses no human has scored
yet should go to a rater pair next, to narrow the widest prediction-powered intervals
(``judging.ppi``). Pure, no ORM.

Greedy, one response at a time: the cell (a model x condition, say) whose interval is now the
widest (a cell with under two human-scored responses first) gets the next human score. Within a
cell the responses are drawn at random (seeded): the estimate in ``judging.ppi`` holds only for a
random sample of a cell's responses, and choosing the ones the judge is least sure of would bias it
wherever that doubt goes with the judge's error (active inference would have to weight them back:
Zrnic & Candes 2024). Each cell's variances are held at their present estimates while planning, as
in a power calculation; a lab plans a round, has it scored, and plans again. The plan says each
cell's expected interval width before and after.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from judging.ppi import Z95

Key = TypeVar("Key", bound=Hashable)  # however the caller names its cells


@dataclass(frozen=True)
class Cell:
    human: Sequence[float]  # the humans' final scores of the cell's human-scored responses
    judge_on_human: Sequence[float]  # the judge's mean score of the same responses
    # responses no human scored: id -> the judge's score
    judge_only: Mapping[Hashable, float]
    # of those, the ones a plan may choose (None: all; one already given to a pair is not)
    available: Collection[Hashable] | None = None


@dataclass(frozen=True)
class CellPlan:
    chosen: list[Hashable]  # in the order picked
    width_before: float | None
    width_after: float | None


@dataclass
class _Estimate:
    """A cell's interval as planning goes: its variances held at their estimates, its counts moving."""

    human_var: float
    covariance: float  # of the humans' and the judge's scores
    judge_var: float
    n: int
    big_n: int
    queue: list[Hashable]  # its unscored responses, in a seeded random order
    chosen: list[Hashable]

    def half_width(self) -> float | None:
        """With the weight at its optimum the variance is (Var Y - Cov^2 / Var f * N / (N + n)) / n
        (PPI++'s formula with lambda = Cov / ((1 + n/N) Var f) put in): it falls with every response
        moved from the judge's to the humans' side."""
        if self.n < 2 or self.big_n < 1:
            return None
        explained = self.covariance**2 / self.judge_var if self.judge_var > 0 else 0.0
        variance = (self.human_var - explained * self.big_n / (self.big_n + self.n)) / self.n
        return Z95 * max(variance, 0.0) ** 0.5


def _estimate(key: Hashable, cell: Cell, seed: int) -> _Estimate:
    import numpy as np

    y, f = np.asarray(cell.human, float), np.asarray(cell.judge_on_human, float)
    # the judge's variance on the human-scored responses, as their covariance: Cov^2 <= Var Y Var f
    judge_var = float(f.var(ddof=1)) if len(f) > 1 else 0.0
    human_var = float(y.var(ddof=1)) if len(y) > 1 else 0.0
    covariance = float(np.cov(y, f)[0, 1]) if len(y) > 1 else 0.0
    queue = sorted(cell.judge_only if cell.available is None else cell.available, key=str)
    random.Random(f"{seed}:{key}").shuffle(queue)
    return _Estimate(human_var, covariance, judge_var, len(y), len(cell.judge_only), queue, [])


def human_scoring_plan(*, cells: Mapping[Key, Cell], budget: int, seed: int = 39) -> dict[Key, CellPlan]:
    """Up to ``budget`` responses, across ``cells``, for human pairs to score next."""
    state = {key: _estimate(key, cell, seed) for key, cell in cells.items()}
    before = {key: estimate.half_width() for key, estimate in state.items()}

    def widest_first(key: Key) -> tuple[float, str]:
        half = state[key].half_width()
        return (float("inf") if half is None else half, str(key))  # too few humans to say: first

    for _ in range(budget):
        open_cells = [key for key, estimate in state.items() if estimate.queue]
        if not open_cells:
            break
        estimate = state[max(open_cells, key=widest_first)]
        estimate.chosen.append(estimate.queue.pop(0))
        estimate.n, estimate.big_n = estimate.n + 1, estimate.big_n - 1
    plans = {}
    for key, estimate in state.items():
        was, now = before[key], estimate.half_width()
        plans[key] = CellPlan(
            estimate.chosen, 2 * was if was is not None else None, 2 * now if now is not None else None
        )
    return plans

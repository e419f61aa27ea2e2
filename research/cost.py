"""Generation cost per response and per condition, from the stored turns (pure: no ORM).

Per run (one response when it succeeded): provider calls completed, tokens in and
out, the summed call latency, the time workers spent on it (not the wait for a
worker or for a lost task),
calls that still failed (their turn keeps the error) and retries (every attempt
beyond the first, including attempts that failed before a call succeeded).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean


@dataclass(frozen=True)
class RunCost:
    run_id: int
    research_id: str  # the response's research ID ("" while the run has none)
    scenario: str
    model_number: str
    model: str
    condition: str
    status: str
    calls: int
    prompt_tokens: int
    completion_tokens: int
    latency_seconds: float
    wall_seconds: float | None  # worker time; None while the run has not both started and finished
    failures: int
    retries: int


@dataclass(frozen=True)
class CostMean:
    """Per model and condition: runs, how many succeeded, and means per run."""

    model: str
    model_number: str
    condition: str
    runs: int
    succeeded: int
    calls: float
    prompt_tokens: float
    completion_tokens: float
    wall_seconds: float | None
    failures: int  # totals over the runs
    retries: int


def cost_by_condition(runs: Sequence[RunCost]) -> list[CostMean]:
    groups: dict[tuple[str, str], list[RunCost]] = defaultdict(list)
    for run in runs:
        groups[(run.model_number, run.condition)].append(run)
    out = []
    for (number, condition), rows in sorted(groups.items()):
        walls = [r.wall_seconds for r in rows if r.wall_seconds is not None]
        out.append(
            CostMean(
                model=rows[0].model,
                model_number=number,
                condition=condition,
                runs=len(rows),
                succeeded=sum(r.status == "succeeded" for r in rows),
                calls=fmean(r.calls for r in rows),
                prompt_tokens=fmean(r.prompt_tokens for r in rows),
                completion_tokens=fmean(r.completion_tokens for r in rows),
                wall_seconds=fmean(walls) if walls else None,
                failures=sum(r.failures for r in rows),
                retries=sum(r.retries for r in rows),
            )
        )
    return out

"""Where the next human hours go (beyond the study, issue 39): the plan of which responses the
judge scored and no pair has yet should go to a rater pair next (``judging.sampling``), per model x
condition cell, with each cell's expected interval width before and after (reads only)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass

from judging.estimates import JudgedResponse
from judging.models import Judge
from judging.sampling import Cell, human_scoring_plan
from judging.selectors.estimates import judged_responses_get
from scoring.models import Assignment, AssignmentRole
from studies.models import Response, Study

CellKey = tuple[str, str, str]  # model number, model, condition


@dataclass(frozen=True)
class PlanRow:
    model_number: str
    model: str
    condition: str
    human: int  # responses with a human final score
    judge_only: int
    available: int  # of the judge-only ones, free for a pair (not held, no pair yet)
    chosen: list[str]  # research IDs, in the order the plan picked them
    width_before: float | None  # the PPI++ interval's expected width now
    width_after: float | None  # once the chosen responses have a human final score


@dataclass(frozen=True)
class ScoringPlan:
    budget: int
    rows: list[PlanRow]
    response_ids: list[int]  # every chosen response, in the rows' order

    @property
    def widest_before(self) -> float | None:
        return max((r.width_before for r in self.rows if r.width_before is not None), default=None)

    @property
    def widest_after(self) -> float | None:
        return max((r.width_after for r in self.rows if r.width_after is not None), default=None)


def scoring_plan_get(*, study: Study, judge: Judge, budget: int, seed: int = 39) -> ScoringPlan:
    """Up to ``budget`` responses for human pairs, the widest intervals first, drawn at random
    within a cell (seeded: the same data give the same plan)."""
    responses = judged_responses_get(study=study, judge=judge)
    taken = set(
        Assignment.objects.filter(
            response__study=study, role=AssignmentRole.PRIMARY, archived_at__isnull=True
        ).values_list("response_id", flat=True)
    )
    held = set(Response.objects.filter(study=study, held=True).values_list("pk", flat=True))
    groups: dict[CellKey, list[JudgedResponse]] = defaultdict(list)
    for response in responses:
        groups[(response.model_number, response.model, response.condition)].append(response)
    cells = {}
    for key, group in groups.items():
        scored = [r for r in group if r.human is not None]
        judge_only: dict[Hashable, float] = {r.response_id: r.judge for r in group if r.human is None}
        cells[key] = Cell(
            human=[r.human for r in scored if r.human is not None],
            judge_on_human=[r.judge for r in scored],
            judge_only=judge_only,
            available=[i for i in judge_only if i not in taken and i not in held],
        )
    plans = human_scoring_plan(cells=cells, budget=budget, seed=seed)
    chosen = {key: [i for i in plans[key].chosen if isinstance(i, int)] for key in sorted(plans)}
    chosen_ids = [i for ids in chosen.values() for i in ids]
    research_ids = dict(Response.objects.filter(pk__in=chosen_ids).values_list("pk", "research_id"))
    rows = [
        PlanRow(
            model_number=key[0],
            model=key[1],
            condition=key[2],
            human=len(cells[key].human),
            judge_only=len(cells[key].judge_only),
            available=len(cells[key].available or ()),
            chosen=[research_ids[i] for i in chosen[key]],
            width_before=plans[key].width_before,
            width_after=plans[key].width_after,
        )
        for key in sorted(plans)
    ]
    return ScoringPlan(budget=budget, rows=rows, response_ids=chosen_ids)

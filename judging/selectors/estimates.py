"""The judge and the humans together for one study and one judge (beyond the study, issue 39):
the scores ``judging.estimates`` needs, read once (reads only)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from calibration.models import FinalScore
from judging.estimates import (
    CellEstimate,
    JudgedResponse,
    StepCalibration,
    calibration_by_step,
    cell_estimates,
    overall_self_preference,
    paired_difference_estimates,
)
from judging.models import Judge
from judging.selectors.comparison import judge_sheets_totals, own_family
from judging.self_preference import SelfPreference
from studies.models import Response, ResponseStatus, Study
from studies.rubric import load_rubric


@dataclass(frozen=True)
class JudgeEstimates:
    study: Study
    judge: Judge
    pair: tuple[str, str] | None
    n_judged: int
    n_human: int  # of those, with a human final score no judge took part in
    cells: list[CellEstimate]
    differences: list[CellEstimate]  # per model, the pair's first condition minus its second
    self_preference: SelfPreference
    calibration: list[StepCalibration]


def judged_responses_get(*, study: Study, judge: Judge) -> list[JudgedResponse]:
    """Every live response of ``study`` with a submitted sheet of ``judge``, with the humans'
    final score where one exists that no judge took part in."""
    judged = judge_sheets_totals(study=study, judge=judge)
    finals = {
        row["response_id"]: row
        for row in FinalScore.objects.filter(response_id__in=list(judged), judge_calibrated=False).values(
            "response_id", "overall", "steps"
        )
    }
    rows = (
        Response.objects.filter(pk__in=list(judged), study=study)
        .exclude(status=ResponseStatus.WITHDRAWN)
        .order_by("research_id")
        .values(
            "id", "scenario__code", "model_id", "model__model_number", "model__name", "model__model_name",
            "condition__letter",
        )
    )  # fmt: skip
    responses = []
    for row in rows:
        totals, final = judged[row["id"]], finals.get(row["id"])
        responses.append(
            JudgedResponse(
                response_id=row["id"],
                scenario=row["scenario__code"],
                model_number=row["model__model_number"],
                model=row["model__name"],
                condition=row["condition__letter"],
                own_family=own_family(judge=judge, row=row),
                judge=float(totals.get("overall") or 0),
                human=float(final["overall"]) if final else None,
                judge_steps={int(n): float(v) for n, v in (totals.get("steps") or {}).items()},
                human_steps={int(n): float(v) for n, v in (final["steps"] or {}).items()} if final else None,
            )
        )
    return responses


def judge_calibration_get(*, study: Study, judge: Judge) -> list[StepCalibration]:
    """The calibration by score level alone (the figure's request: no estimate or test to make)."""
    steps = [step.number for step in load_rubric(study.rubric_version).steps]
    return calibration_by_step(judged_responses_get(study=study, judge=judge), steps=steps)


def judge_estimates_get(
    *, study: Study, judge: Judge, pair_rule: Callable[[Iterable[str]], tuple[str, str] | None]
) -> JudgeEstimates:
    """Everything the judge page, its workbook sheet and the API show of the estimates;
    ``pair_rule`` picks the two conditions of the paired difference from those present (the
    research tables' rule, ``research.significance.default_pair``)."""
    responses = judged_responses_get(study=study, judge=judge)
    pair = pair_rule(r.condition for r in responses)
    steps = [step.number for step in load_rubric(study.rubric_version).steps]
    return JudgeEstimates(
        study=study,
        judge=judge,
        pair=pair,
        n_judged=len(responses),
        n_human=sum(1 for r in responses if r.human is not None),
        cells=cell_estimates(responses),
        differences=paired_difference_estimates(responses, pair=pair) if pair else [],
        self_preference=overall_self_preference(responses),
        calibration=calibration_by_step(responses, steps=steps),
    )

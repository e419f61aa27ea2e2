"""What the judge's gate reads (reads only): the scores the alternative annotator test compares,
and the latest test that still holds for the judge's prompt version and model."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from judging.models import Judge, JudgeQualification
from scoring.models import AssignmentRole, ScoreSheet, SheetStatus
from studies.models import ResponseStatus, Study


@dataclass(frozen=True)
class AltTestScores:
    raters: dict[str, dict[int, float]]  # rater -> response -> overall score
    judge: dict[int, float]  # response -> the judge's overall score
    double_scored: int  # responses with two or more human raters and a sheet of the judge


def alt_test_scores_get(*, study: Study, judge: Judge) -> AltTestScores:
    """The humans' submitted primary and calibration sheets of the study's live responses, by
    rater; the judge's submitted sheets from its batches run with its present prompt version and
    model (a sheet imported or made by another model does not speak for this one)."""
    live = {"assignment__response__study": study, "status": SheetStatus.SUBMITTED}
    humans = (
        ScoreSheet.objects.filter(
            **live,
            assignment__archived_at__isnull=True,
            assignment__role__in=[AssignmentRole.PRIMARY, AssignmentRole.CALIBRATION],
        )
        .exclude(assignment__response__status=ResponseStatus.WITHDRAWN)
        .values_list(
            "assignment__rater__rater_profile__rater_code", "assignment__rater__username",
            "assignment__response_id", "totals",
        )
    )  # fmt: skip
    raters: dict[str, dict[int, float]] = defaultdict(dict)
    for code, username, response_id, totals in humans:
        if totals and totals.get("overall") is not None:
            raters[code or username][response_id] = float(totals["overall"])
    by_judge = (
        ScoreSheet.all_objects.filter(
            **live,
            assignment__role=AssignmentRole.JUDGE,
            assignment__rater=judge.user,
            assignment__archived_at__isnull=True,
            judge_task__batch__prompt_version=judge.prompt_version,
            judge_task__batch__model_name=judge.endpoint.model_name,
        )
        .exclude(assignment__response__status=ResponseStatus.WITHDRAWN)
        .order_by("submitted_at", "id")
        .values_list("assignment__response_id", "totals")
    )
    judge_scores = {
        response_id: float(totals["overall"])
        for response_id, totals in by_judge
        if totals and totals.get("overall") is not None
    }
    counts: dict[int, int] = defaultdict(int)
    for scores in raters.values():
        for response_id in scores:
            counts[response_id] += 1
    double = sum(1 for response_id, n in counts.items() if n >= 2 and response_id in judge_scores)
    return AltTestScores(dict(raters), judge_scores, double)


def judge_qualification_latest(*, study: Study, judge: Judge) -> JudgeQualification | None:
    """The judge's latest test on the study, whatever its prompt version and model."""
    return JudgeQualification.objects.filter(study=study, judge=judge).first()


def judge_qualification_holds(*, qualification: JudgeQualification | None, judge: Judge) -> bool:
    """A passed test made with the judge's present prompt version and model."""
    return (
        qualification is not None
        and qualification.passed
        and qualification.prompt_version == judge.prompt_version
        and qualification.model_name == judge.endpoint.model_name
    )

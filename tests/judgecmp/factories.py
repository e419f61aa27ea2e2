"""Judges and judge sheets for the comparison tests: a Judge with its own inactive user
(and rater code) whose sheets are stored as a score import stores them."""

from __future__ import annotations

from scoring.models import Assignment, AssignmentRole, RaterProfile
from scoring.services.sheets import sheet_fill_and_submit
from tests.factories import ModelEndpointFactory, UserFactory


def judge_make(name: str = "judge-1", *, endpoint=None, provider_family: str = ""):
    from judging.models import Judge

    user = UserFactory(username=f"judge-{name}")
    user.is_active = False
    user.save(update_fields=["is_active"])
    RaterProfile.objects.update_or_create(user=user, defaults={"rater_code": f"J-{name}"[:16]})
    return Judge.objects.create(
        name=name,
        endpoint=endpoint or ModelEndpointFactory(),
        user=user,
        prompt_version="test-1",
        provider_family=provider_family,
    )


def judge_sheet(judge, response, changes):
    """A submitted judge sheet on the response (changes as score imports build them), the product
    of a finished task of a batch of the judge's present prompt and model, as a judge batch leaves
    it (the gate tests only such sheets)."""
    from judging.models import JudgeBatch, JudgeBatchStatus, JudgeTask, JudgeTaskStatus

    assignment = Assignment.all_objects.create(role=AssignmentRole.JUDGE, rater=judge.user, response=response)
    sheet = sheet_fill_and_submit(
        assignment=assignment,
        actor=judge.user,
        changes=changes,
        source="import",
        note="judge test sheet",
        require_texts=False,
    )
    batch, _ = JudgeBatch.objects.get_or_create(
        study=response.study,
        judge=judge,
        prompt_version=judge.prompt_version,
        model_name=judge.endpoint.model_name,
        defaults={"temperature": judge.temperature, "samples": 1, "status": JudgeBatchStatus.FINISHED},
    )
    JudgeTask.objects.create(batch=batch, response=response, sheet=sheet, status=JudgeTaskStatus.SUCCEEDED)
    return sheet


def judge_qualified(judge, study, settings):
    """The judge's gate run on the study's few responses (the thresholds lowered to fit them)."""
    from judging.services.qualification import judge_qualification_run

    settings.JUDGE_GATE_MIN_RESPONSES = settings.JUDGE_GATE_MIN_PER_RATER = 4
    return judge_qualification_run(study=study, judge=judge)

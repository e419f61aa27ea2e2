"""The gate before an LLM judge may count as a study's third rater (beyond the study, issue 39).

The judge must pass the leave-one-rater-out alternative annotator test (``judging.alt_test``:
Calderon, Reichart & Dror 2025) on at least ``JUDGE_GATE_MIN_RESPONSES`` double-scored responses
of the study, comparing overall scores, each human rater on at least ``JUDGE_GATE_MIN_PER_RATER``
of them. A test holds for the judge's prompt version and model at the time: it runs again when
a batch of the judge ends (``judging.tasks``), and a test that fails, or a model that changes
(``judge_opt_in_revoke_for_endpoint``), takes the opt-in away. Every run and every revocation is
audited."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction

from judging.alt_test import alt_test
from judging.models import Judge, JudgeBatch, JudgeQualification
from judging.selectors.qualification import alt_test_scores_get, judge_qualification_holds
from judging.services.opt_in import study_judge_opt_in_set
from studies.models import Study
from studies.services.audit import audit_record

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def judge_qualification_run(*, study: Study, judge: Judge, actor: User | None = None) -> JudgeQualification:
    """Run the test on the study's scores now and record it; a judge that counts in the study and
    does not pass stops counting (the opt-in is revoked and the study recomputed)."""
    scores = alt_test_scores_get(study=study, judge=judge)
    epsilon = float(settings.JUDGE_GATE_EPSILON)
    values = {
        "judge": judge, "study": study, "prompt_version": judge.prompt_version,
        "model_name": judge.endpoint.model_name, "responses": scores.double_scored, "epsilon": epsilon,
        "created_by": actor,
    }  # fmt: skip
    needed = int(settings.JUDGE_GATE_MIN_RESPONSES)
    values["min_responses"] = needed
    if scores.double_scored < needed:
        values.update(passed=False, unrun=JudgeQualification.Unrun.TOO_FEW)
    else:
        result = alt_test(
            raters=scores.raters,
            judge=scores.judge,
            epsilon=epsilon,
            min_responses=int(settings.JUDGE_GATE_MIN_PER_RATER),
        )
        values.update(
            passed=result.passed,
            unrun="" if result.comparisons else JudgeQualification.Unrun.NO_RATER,
            winning_rate=result.winning_rate,
            advantage_probability=result.advantage_probability,
            comparisons=[
                {
                    "rater": c.rater,
                    "responses": c.responses,
                    "judge_wins": c.judge_wins,
                    "rater_wins": c.rater_wins,
                    "p_value": c.p_value,
                    "judge_beats_rater": c.judge_beats_rater,
                }
                for c in result.comparisons
            ],  # fmt: skip
            skipped=result.skipped,
        )
    with transaction.atomic():
        qualification = JudgeQualification.objects.create(**values)
        audit_record(
            actor=actor,
            action="judge.qualification",
            target=judge,
            study=study,
            changes={
                "passed": qualification.passed,
                "responses": qualification.responses,
                "winning_rate": qualification.winning_rate,
                "advantage_probability": qualification.advantage_probability,
                "prompt_version": qualification.prompt_version,
                "model_name": qualification.model_name,
            },
        )
    if not qualification.passed and study.calibrating_judge_id == judge.user_id:
        study_judge_opt_in_set(study=study, judge=None, actor=actor, reason="the judge did not pass the test")
    return qualification


def judge_qualification_after_batch(*, batch_id: int) -> JudgeQualification | None:
    """The test again once a batch of the judge has ended, if the batch ran the judge's present
    prompt version and model (idempotent enough: a second run records the same verdict again)."""
    batch = JudgeBatch.objects.select_related("judge__endpoint", "study").filter(pk=batch_id).first()
    if batch is None:
        return None
    judge = batch.judge
    if (batch.prompt_version, batch.model_name) != (judge.prompt_version, judge.endpoint.model_name):
        return None
    return judge_qualification_run(study=batch.study, judge=judge)


def judge_opt_in_revoke_for_endpoint(*, endpoint_id: int, actor: User | None = None) -> int:
    """After an endpoint's model changed: every study counting a judge of that endpoint whose
    test no longer holds stops counting it. Returns how many studies."""
    revoked = 0
    for judge in Judge.objects.filter(endpoint_id=endpoint_id).select_related("endpoint"):
        for study in Study.objects.filter(calibrating_judge=judge.user):
            latest = JudgeQualification.objects.filter(study=study, judge=judge).first()
            if not judge_qualification_holds(qualification=latest, judge=judge):
                study_judge_opt_in_set(
                    study=study, judge=None, actor=actor, reason="the judge's model changed: test it again"
                )
                revoked += 1
    return revoked

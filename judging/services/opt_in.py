"""The study's opt-in by which ONE LLM judge counts as the third (calibrating) rater.

With ``Study.calibrating_judge`` set to a judge's rater account, a response whose pair is
at or under the threshold and has no submitted human calibration sheet is calibrated by
that judge's submitted sheet (the study's final-score rule then picks the sheets as for
a human calibrator); no human calibrator is routed to it, a human calibration sheet
submitted later takes the judge's place, and the final score records it
(``FinalScore.judge_calibrated``). Every table built on those final scores says so."""

from __future__ import annotations

from django.db import transaction

from calibration.services.calibration import RecomputeReport, study_agreement_recompute
from judging.models import Judge
from studies.models import Study
from studies.services.audit import audit_record


def study_judge_opt_in_set(*, study: Study, judge: Judge | None, actor=None) -> RecomputeReport:
    """Let ``judge`` count as the study's third rater (None: judges never count again), then
    recompute the study's agreement, routing and final scores."""
    with transaction.atomic():
        locked = Study.objects.select_for_update().get(pk=study.pk)
        before = locked.calibrating_judge_id
        locked.calibrating_judge = judge.user if judge is not None else None
        locked.save(update_fields=["calibrating_judge"])
        if before != locked.calibrating_judge_id:
            changes = {"calibrating_judge": [before, locked.calibrating_judge_id]}
            audit_record(
                actor=actor, action="study.judge_opt_in", target=locked, study=locked, changes=changes
            )
    study.calibrating_judge = locked.calibrating_judge
    return study_agreement_recompute(study_id=study.pk, actor=actor)

"""The study's opt-in by which ONE LLM judge counts as the third (calibrating) rater.

With ``Study.calibrating_judge`` set to a judge's rater account, a response whose pair is
at or under the threshold and has no submitted human calibration sheet is calibrated by
that judge's submitted sheet (the study's final-score rule then picks the sheets as for
a human calibrator); no human calibrator is routed to it, a human calibration sheet
submitted later takes the judge's place, and the final score records it
(``FinalScore.judge_calibrated``). Every table built on those final scores says so."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction
from django.utils.translation import gettext as _

from calibration.services.calibration import RecomputeReport, study_agreement_recompute
from judging.models import Judge, JudgeQualification
from judging.selectors.qualification import judge_qualification_holds, judge_qualification_latest
from studies.models import Study
from studies.services.audit import audit_record

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class OptInRefused(Exception):
    """The judge has not passed the gate (``judging.services.qualification``) as it is now."""


def study_judge_opt_in_set(
    *, study: Study, judge: Judge | None, actor: User | None = None, reason: str = ""
) -> RecomputeReport:
    """Let ``judge`` count as the study's third rater (None: judges never count again), then
    recompute the study's agreement, routing and final scores. A judge counts only while its
    latest test on the study passed with its present prompt version and model (else
    :class:`OptInRefused`, nothing changed). ``reason``: why, for the audit trail."""
    if judge is not None:
        latest = judge_qualification_latest(study=study, judge=judge)
        if not judge_qualification_holds(qualification=latest, judge=judge):
            raise OptInRefused(_opt_in_refusal(judge, latest))
    with transaction.atomic():
        locked = Study.objects.select_for_update().get(pk=study.pk)
        before = locked.calibrating_judge_id
        locked.calibrating_judge = judge.user if judge is not None else None
        locked.save(update_fields=["calibrating_judge"])
        if before != locked.calibrating_judge_id:
            changes = {"calibrating_judge": [before, locked.calibrating_judge_id]}
            audit_record(
                actor=actor,
                action="study.judge_opt_in",
                target=locked,
                study=locked,
                changes=changes,
                reason=reason,
            )
    study.calibrating_judge = locked.calibrating_judge
    return study_agreement_recompute(study_id=study.pk, actor=actor)


def _opt_in_refusal(judge: Judge, latest: JudgeQualification | None) -> str:
    if latest is None:
        return _(
            "%(judge)s may count as third rater only after passing the alternative annotator test on "
            "this study: run the test first."
        ) % {"judge": judge.name}
    if latest.passed:
        return _(
            "%(judge)s passed the test with prompt %(prompt)s and model %(model)s; it now runs %(now)s: "
            "score responses with it and run the test again."
        ) % {"judge": judge.name, "prompt": latest.prompt_version, "model": latest.model_name,
             "now": f"{judge.prompt_version} / {judge.endpoint.model_name}"}  # fmt: skip
    return _("%(judge)s did not pass the alternative annotator test on this study: %(why)s") % {
        "judge": judge.name,
        "why": latest.unrun_text()
        or _("winning rate %(rate)s, under one half.") % {"rate": f"{latest.winning_rate:.2f}"},
    }

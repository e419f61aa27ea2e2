"""Without an opt-in a judge's sheets count for nothing the humans' numbers come from:
final scores, Table 6, the agreement rows and calibration routing are the same with
and without them."""

import pytest

from calibration.models import FinalScore, GroupAgreement, ResponseAgreement
from calibration.selectors.consistency import consistency_table
from calibration.services.calibration import study_agreement_recompute
from scoring.models import Assignment
from studies.models import Response
from tests.factories import rater
from tests.judgecmp.conftest import humans_scored, judge_scores
from tests.judgecmp.factories import judge_make

pytestmark = pytest.mark.django_db


def _snapshot(study):
    return {
        "final": sorted(
            (
                f.response_id,
                str(f.overall),
                f.rule,
                f.calibrated,
                sorted(f.sheets.values_list("pk", flat=True)),
            )
            for f in FinalScore.objects.filter(response__study=study)
        ),
        "agreement": sorted(
            (a.response_id, a.pcc, a.flagged, a.after_pcc)
            for a in ResponseAgreement.objects.filter(response__study=study)
        ),
        "icc": sorted(
            (g.scenario_id, g.stage, g.n_responses, repr(g.forms))
            for g in GroupAgreement.objects.filter(study=study)
        ),
        "statuses": sorted(Response.objects.filter(study=study).values_list("pk", "status")),
        "assignments": sorted(
            Assignment.objects.filter(response__study=study).values_list(
                "pk", "rater_id", "role", "archived_at"
            )
        ),
        "table6": repr(consistency_table(study=study)),
    }


def test_judge_sheets_change_no_human_number(db):
    rater("cal-1", "H90", can_calibrate=True)  # a calibrator the flagged response is routed to
    group, sheets = humans_scored()
    first = study_agreement_recompute(study_id=group.study.pk)
    assert first.flagged == 1 and len(first.routed) == 1
    before = _snapshot(group.study)

    judge = judge_make("j-off", endpoint=sheets[0][0].model)
    judge_scores(judge, sheets)
    again = study_agreement_recompute(study_id=group.study.pk)
    assert (again.flagged, again.routed, again.calibrated) == (1, [], 0)
    assert _snapshot(group.study) == before
    # the judge's work exists, only outside the default managers
    assert Assignment.all_objects.filter(rater=judge.user).count() == 4
    assert Assignment.objects.filter(rater=judge.user).count() == 0

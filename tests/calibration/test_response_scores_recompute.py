"""response_scores_recompute: PCC, flags, routing to a calibrator, final scores, reopen."""

from decimal import Decimal

import pytest

from calibration.models import CalibrationDecision, FinalScore, ResponseAgreement
from calibration.services.calibration import response_scores_recompute
from scoring.models import Assignment, ScoreSheet
from scoring.services.sheets import sheet_reopen
from studies.rubric import load_rubric
from tests.factories import (
    assign,
    make_response,
    maximal_changes,
    mirrored_changes,
    rater,
    reference_changes,
    scoring_group,
    sheet_submitted,
)


@pytest.fixture
def rubric():
    return load_rubric()


def _pair(group, response, changes_a, changes_b):
    a = sheet_submitted(group.rater_a, response, changes_a, group=group)
    b = sheet_submitted(group.rater_b, response, changes_b, group=group)
    response_scores_recompute(response_id=response.pk)
    return a, b


def _calibrations(response):
    return Assignment.objects.filter(response=response, role="calibration", archived_at__isnull=True)


def test_agreeing_pair_gets_the_mean_and_no_calibrator(db):
    rater("cal-1", can_calibrate=True)
    group, (response,) = scoring_group(n_responses=1)
    a, b = _pair(group, response, reference_changes(3), reference_changes(4))
    agreement = ResponseAgreement.objects.get(response=response)
    assert round(agreement.pcc, 3) == 0.863 and not agreement.flagged
    assert agreement.threshold == Decimal("0.650")
    assert (agreement.sheet_a_id, agreement.sheet_b_id) == (a.pk, b.pk)
    assert agreement.after_pcc == agreement.pcc
    final = FinalScore.objects.get(response=response)
    assert final.overall == Decimal("116.50") and final.rule == "mean_of_pair" and not final.calibrated
    assert set(final.sheets.values_list("pk", flat=True)) == {a.pk, b.pk}
    assert not _calibrations(response).exists()
    response.refresh_from_db()
    assert response.status == "final"


def test_disagreeing_pair_is_flagged_and_routed_to_the_least_loaded_calibrator(db, rubric):
    busy = rater("cal-busy", can_calibrate=True)
    free = rater("cal-free", can_calibrate=True)
    rater("not-a-calibrator")
    group, (response,) = scoring_group(n_responses=1)
    assign(busy, make_response(study=group.study))  # an open sheet elsewhere
    _pair(group, response, reference_changes(3), mirrored_changes(reference_changes(3), rubric))
    agreement = ResponseAgreement.objects.get(response=response)
    assert agreement.pcc < 0.65 and agreement.flagged and agreement.reason == ""
    (calibration,) = _calibrations(response)
    assert calibration.rater == free
    assert calibration.group == group
    assert CalibrationDecision.objects.get(response=response).assignment == calibration
    assert not FinalScore.objects.filter(response=response).exists()  # no provisional final score
    response.refresh_from_db()
    assert response.status == "calibration"


def test_routing_is_idempotent_and_never_picks_a_pair_member(db, rubric):
    group, (response,) = scoring_group(n_responses=1)
    for member in (group.rater_a, group.rater_b):
        member.rater_profile.can_calibrate = True
        member.rater_profile.save()
    outsider = rater("cal-outsider", can_calibrate=True)
    _pair(group, response, reference_changes(3), mirrored_changes(reference_changes(3), rubric))
    for _ in range(3):
        response_scores_recompute(response_id=response.pk)
    assert list(_calibrations(response).values_list("rater", flat=True)) == [outsider.pk]
    assert Assignment.objects.filter(response=response, role="calibration").count() == 1


def test_no_free_calibrator_leaves_the_response_flagged_until_one_exists(db, rubric):
    group, (response,) = scoring_group(n_responses=1)
    _pair(group, response, reference_changes(3), mirrored_changes(reference_changes(3), rubric))
    assert ResponseAgreement.objects.get(response=response).flagged
    assert not _calibrations(response).exists()
    late = rater("cal-late", can_calibrate=True)
    report = response_scores_recompute(response_id=response.pk)
    assert report.unassigned == [] and len(report.routed) == 1
    assert _calibrations(response).get().rater == late


def test_constant_vector_has_no_pcc_and_is_flagged_with_a_reason(db, rubric):
    rater("cal-1", can_calibrate=True)
    group, (response,) = scoring_group(n_responses=1)
    _pair(group, response, maximal_changes(rubric), reference_changes(3))
    agreement = ResponseAgreement.objects.get(response=response)
    assert agreement.pcc is None and agreement.p_value is None
    assert agreement.reason == "no variance" and agreement.flagged
    assert _calibrations(response).exists()


def test_one_sheet_missing_gives_a_reason_and_no_final_score(db):
    group, (response,) = scoring_group(n_responses=1)
    sheet_submitted(group.rater_a, response, reference_changes(3), group=group)  # rater B has not submitted
    response_scores_recompute(response_id=response.pk)
    agreement = ResponseAgreement.objects.get(response=response)
    assert agreement.pcc is None and agreement.reason == "missing sheet" and not agreement.flagged
    assert not FinalScore.objects.filter(response=response).exists()
    response.refresh_from_db()
    assert response.status == "scoring"


def test_calibrated_final_score_uses_the_calibrator_and_the_closer_rater(db, rubric):
    calibrator = rater("cal-1", can_calibrate=True)
    group, (response,) = scoring_group(n_responses=1)
    a, b = _pair(group, response, reference_changes(3), mirrored_changes(reference_changes(3), rubric))
    before = {s.pk: (s.version, s.totals) for s in (a, b)}
    cal = sheet_submitted(
        calibrator, response, reference_changes(4), assignment=_calibrations(response).get()
    )
    response_scores_recompute(response_id=response.pk)
    final = FinalScore.objects.get(response=response)
    assert final.calibrated and final.rule == "calibrator_and_closer"
    assert set(final.sheets.values_list("pk", flat=True)) == {cal.pk, a.pk}  # A agrees with the calibrator
    assert final.overall == (Decimal(cal.overall) + Decimal(a.overall)) / 2
    assert "Closer primary rater: Rater A" in final.note
    agreement = ResponseAgreement.objects.get(response=response)
    assert agreement.flagged and round(agreement.after_pcc, 3) == 0.863  # H02 vs H01 again
    response.refresh_from_db()
    assert response.status == "final"
    for sheet in ScoreSheet.objects.filter(pk__in=before):  # first-pass sheets untouched
        assert (sheet.version, sheet.totals) == before[sheet.pk] and sheet.is_submitted


@pytest.mark.parametrize(
    ("rule", "expected_sheets"),
    [("mean_of_three", {"a", "b", "c"}), ("calibrator_only", {"c"}), ("calibrator_and_closer", {"a", "c"})],
)
def test_final_score_rule_is_the_studys(db, rubric, rule, expected_sheets):
    calibrator = rater("cal-1", can_calibrate=True)
    group, (response,) = scoring_group(n_responses=1)
    group.study.final_score_rule = rule
    group.study.save()
    a, b = _pair(group, response, reference_changes(3), mirrored_changes(reference_changes(3), rubric))
    c = sheet_submitted(calibrator, response, reference_changes(4), assignment=_calibrations(response).get())
    response_scores_recompute(response_id=response.pk)
    final = FinalScore.objects.get(response=response)
    sheets = {"a": a, "b": b, "c": c}
    used = [sheets[k] for k in sorted(expected_sheets)]
    assert final.rule == rule
    assert set(final.sheets.values_list("pk", flat=True)) == {s.pk for s in used}
    assert final.overall == (sum(Decimal(s.overall) for s in used) / len(used)).quantize(Decimal("0.01"))


def test_reopening_a_primary_sheet_recomputes_everything_downstream(db, rubric):
    admin = rater("admin-ish")
    group, (response,) = scoring_group(n_responses=1)
    a, b = _pair(group, response, reference_changes(3), reference_changes(4))
    assert FinalScore.objects.filter(response=response).exists()
    sheet_reopen(sheet_id=b.pk, actor=admin, reason="typo in Step 6")
    response_scores_recompute(response_id=response.pk)
    agreement = ResponseAgreement.objects.get(response=response)
    assert agreement.pcc is None and agreement.reason == "missing sheet"
    assert not FinalScore.objects.filter(response=response).exists()
    response.refresh_from_db()
    assert response.status == "scoring"
    from scoring.services.sheets import sheet_apply_changes, sheet_submit

    b.refresh_from_db()
    saved = sheet_apply_changes(
        sheet_id=b.pk,
        actor=group.rater_b,
        changes=mirrored_changes(reference_changes(3), rubric),
        expected_version=b.version,
    )
    sheet_submit(sheet_id=b.pk, actor=group.rater_b, expected_version=saved.version)
    rater("cal-1", can_calibrate=True)
    response_scores_recompute(response_id=response.pk)
    assert ResponseAgreement.objects.get(response=response).flagged
    assert not FinalScore.objects.filter(response=response).exists()
    assert _calibrations(response).exists()


def test_reopening_the_calibrators_sheet_withdraws_the_calibrated_score(db, rubric):
    calibrator = rater("cal-1", can_calibrate=True)
    group, (response,) = scoring_group(n_responses=1)
    _pair(group, response, reference_changes(3), mirrored_changes(reference_changes(3), rubric))
    c = sheet_submitted(calibrator, response, reference_changes(4), assignment=_calibrations(response).get())
    response_scores_recompute(response_id=response.pk)
    assert FinalScore.objects.get(response=response).calibrated
    sheet_reopen(sheet_id=c.pk, actor=calibrator, reason="recheck")
    response_scores_recompute(response_id=response.pk)
    assert not FinalScore.objects.filter(response=response).exists()
    assert _calibrations(response).get().pk == c.assignment_id  # the calibration work stays
    response.refresh_from_db()
    assert response.status == "calibration"


def test_recompute_of_a_deleted_response_is_a_no_op(db):
    assert response_scores_recompute(response_id=987654) is None

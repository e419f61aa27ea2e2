"""calibration_assign (an admin chooses the calibrator) and calibration_decision_record (the reason)."""

import pytest

from calibration.models import CalibrationDecision
from calibration.selectors.agreement import calibrator_choices
from calibration.services.calibration import (
    CalibrationError,
    calibration_assign,
    response_scores_recompute,
)
from calibration.services.decisions import calibration_decision_record
from core.accounts.roles import ADMIN
from scoring.models import Assignment, ScoreSheet
from studies.models import AuditEvent
from studies.rubric import load_rubric
from tests.factories import (
    UserFactory,
    mirrored_changes,
    rater,
    reference_changes,
    scoring_group,
    sheet_submitted,
)


@pytest.fixture
def flagged(db):
    first = rater("cal-first", can_calibrate=True)
    group, (response,) = scoring_group(n_responses=1)
    sheet_submitted(group.rater_a, response, reference_changes(3), group=group)
    sheet_submitted(
        group.rater_b, response, mirrored_changes(reference_changes(3), load_rubric()), group=group
    )
    response_scores_recompute(response_id=response.pk)
    return group, response, first


def _active(response):
    return Assignment.objects.get(response=response, role="calibration", archived_at__isnull=True)


def test_admin_replaces_an_unstarted_calibrator(flagged):
    group, response, first = flagged
    second = rater("cal-second", can_calibrate=True)
    admin = UserFactory(username="boss", role=ADMIN)
    assignment = calibration_assign(response_id=response.pk, calibrator=second, actor=admin)
    assert _active(response) == assignment and assignment.rater == second and assignment.created_by == admin
    old = Assignment.objects.get(response=response, rater=first)
    assert old.archived_at is not None and "reassigned" in old.archived_reason
    assert CalibrationDecision.objects.get(response=response).assignment == assignment
    # audited, with the calibrator it replaced (issue 36, pass 5, B3)
    (event,) = AuditEvent.objects.filter(action="calibration.assign")
    assert event.actor == admin and event.study_id == response.study_id
    assert event.changes == {"calibrator": [first.pk, second.pk]}
    # choosing the same calibrator again changes nothing
    assert calibration_assign(response_id=response.pk, calibrator=second, actor=admin) == assignment
    assert AuditEvent.objects.filter(action="calibration.assign").count() == 1


def test_refused_choices_change_nothing(flagged):
    group, response, first = flagged
    admin = UserFactory(username="boss", role=ADMIN)
    not_allowed = rater("plain-rater")
    with pytest.raises(CalibrationError, match="may not calibrate"):
        calibration_assign(response_id=response.pk, calibrator=not_allowed, actor=admin)
    group.rater_a.rater_profile.can_calibrate = True
    group.rater_a.rater_profile.save()
    with pytest.raises(CalibrationError, match="already scores"):
        calibration_assign(response_id=response.pk, calibrator=group.rater_a, actor=admin)
    sheet_submitted(first, response, reference_changes(4), assignment=_active(response))
    with pytest.raises(CalibrationError, match="has submitted"):
        calibration_assign(
            response_id=response.pk, calibrator=rater("cal-x", can_calibrate=True), actor=admin
        )
    assert _active(response).rater == first


def test_only_flagged_responses_go_to_a_calibrator(db):
    group, (response,) = scoring_group(n_responses=1)
    sheet_submitted(group.rater_a, response, reference_changes(3), group=group)
    sheet_submitted(group.rater_b, response, reference_changes(4), group=group)
    response_scores_recompute(response_id=response.pk)
    with pytest.raises(CalibrationError, match="below the agreement threshold"):
        calibration_assign(response_id=response.pk, calibrator=rater("c", can_calibrate=True), actor=None)
    assert not Assignment.objects.filter(response=response, role="calibration").exists()


def test_reason_by_the_calibrator_only_after_submitting(flagged):
    group, response, first = flagged
    with pytest.raises(CalibrationError, match="after submitting"):
        calibration_decision_record(response_id=response.pk, actor=first, reason="too early")
    with pytest.raises(CalibrationError, match="after submitting"):
        calibration_decision_record(response_id=response.pk, actor=group.rater_a, reason="not mine")
    sheet = sheet_submitted(first, response, reference_changes(4), assignment=_active(response))
    with pytest.raises(CalibrationError, match="short reason"):
        calibration_decision_record(response_id=response.pk, actor=first, reason="   ")
    decision = calibration_decision_record(
        response_id=response.pk, actor=first, reason="Rater B misread Step 2."
    )
    assert decision.reason == "Rater B misread Step 2." and decision.decided_by == first
    assert decision.assignment_id == sheet.assignment_id
    admin = UserFactory(username="boss", role=ADMIN)
    decision = calibration_decision_record(response_id=response.pk, actor=admin, reason="Confirmed.")
    assert decision.decided_by == admin
    # each text is audited with the one it replaced: an edit never loses the earlier reason
    events = list(AuditEvent.objects.filter(action="calibration.decision").order_by("pk"))
    assert [e.changes["reason"] for e in events] == [
        ["", "Rater B misread Step 2."],
        ["Rater B misread Step 2.", "Confirmed."],
    ]
    assert [e.actor for e in events] == [first, admin]
    calibration_decision_record(response_id=response.pk, actor=admin, reason="Confirmed.")
    assert AuditEvent.objects.filter(action="calibration.decision").count() == 2  # unchanged: none
    assert ScoreSheet.objects.filter(assignment__response=response, assignment__role="primary").count() == 2


def test_a_calibrator_who_trained_on_the_response_is_never_its_calibrator(flagged):
    """A calibrator who had a training copy of the response has seen its reference: the
    automatic routing passes them over and the admin's choice is refused."""
    from training.services.training_set import training_enroll, training_response_add

    group, response, first = flagged
    admin = UserFactory(username="boss", role=ADMIN)
    trainee = rater("cal-trainee", can_calibrate=True)
    training_response_add(study=response.study, research_id=response.research_id, rater_codes=[], actor=admin)
    training_enroll(rater=trainee, study=response.study)
    with pytest.raises(CalibrationError, match="trained on a copy of this response"):
        calibration_assign(response_id=response.pk, calibrator=trainee, actor=admin)
    assert _active(response).rater == first
    # nor is the trainee offered on the response's page (hostile pass 24: the list offered them)
    assert trainee not in [choice["user"] for choice in calibrator_choices(response=response)]
    # with the calibrator gone, routing has nobody left: the trainee is passed over
    Assignment.objects.filter(rater=first).update(archived_at="2026-01-01T00:00Z")
    first.rater_profile.can_calibrate = False
    first.rater_profile.save()
    response_scores_recompute(response_id=response.pk)
    assert not Assignment.objects.filter(
        response=response, role="calibration", archived_at__isnull=True
    ).exists()
    assert not Assignment.objects.filter(rater=trainee, role="calibration").exists()


def test_automatic_routing_and_the_archive_of_a_replaced_calibrator_are_audited(flagged):
    """Hostile pass 25: a calibration assignment the recompute routed, and one it or a reassignment
    took back, left no trace in the audit trail or the sheet's."""
    group, response, first = flagged
    (routed,) = AuditEvent.objects.filter(action="calibration.route")
    assert routed.study_id == response.study_id and routed.target.endswith(f":{response.pk}")
    assert routed.changes == {"calibrator": [None, first.pk]} and "threshold" in routed.reason
    admin = UserFactory(username="boss", role=ADMIN)
    calibration_assign(
        response_id=response.pk, calibrator=rater("cal-second", can_calibrate=True), actor=admin
    )
    (archived,) = AuditEvent.objects.filter(action="assignment.archived")  # no sheet opened: the audit trail
    assert archived.actor == admin and "reassigned" in archived.reason
    assert archived.changes == {"rater": first.pk, "response": response.pk}

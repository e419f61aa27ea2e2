"""Routing chooses only calibrators who can log in (issue 22, finding 7): outside demo
mode the demo calibrator is never given a calibration; when nobody who may calibrate
can log in, the consistency page says so instead of assigning."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.utils import timezone

from calibration.selectors.agreement import calibrator_choices
from calibration.services.calibration import CalibrationError, calibration_assign, response_scores_recompute
from core.accounts.roles import ADMIN, DEMO_GROUP
from onboarding.models import Invitation
from scoring.models import Assignment
from studies.rubric import load_rubric
from tests.factories import (
    UserFactory,
    mirrored_changes,
    rater,
    reference_changes,
    scoring_group,
    sheet_submitted,
)

pytestmark = pytest.mark.django_db


def _flagged_response():
    group, (response,) = scoring_group(n_responses=1)
    sheet_submitted(group.rater_a, response, reference_changes(3), group=group)
    sheet_submitted(
        group.rater_b, response, mirrored_changes(reference_changes(3), load_rubric()), group=group
    )
    return response


def _calibrators(response):
    return list(
        Assignment.objects.filter(
            response=response, role="calibration", archived_at__isnull=True
        ).values_list("rater__username", flat=True)
    )


def test_the_demo_calibrator_gets_no_calibration_outside_demo_mode_and_the_page_says_so(
    demo, settings, client
):
    settings.DEMO_MODE = False
    response = _flagged_response()
    report = response_scores_recompute(response_id=response.pk)
    assert report is not None
    assert report.unassigned == [response.pk] and not report.routed
    assert _calibrators(response) == []  # not the demo "calibrator", who cannot log in
    assert calibrator_choices(response=response) == []
    with pytest.raises(CalibrationError):
        calibration_assign(
            response_id=response.pk,
            calibrator=get_user_model().objects.get(username="calibrator"),
            actor=None,
        )
    client.force_login(UserFactory(username="lab-admin", role=ADMIN))
    page = client.get(f"/research/agreement/?study={response.study_id}").content.decode()
    assert 'id="no-calibrator"' in page and "without a calibrator" in page
    # in demo mode the same account can log in, and routing picks it
    settings.DEMO_MODE = True
    response_scores_recompute(response_id=response.pk)
    assert _calibrators(response) == ["calibrator"]
    page = client.get(f"/research/agreement/?study={response.study_id}").content.decode()
    assert 'id="no-calibrator"' not in page


def test_routing_skips_accounts_without_a_password_unless_invited(db, settings):
    settings.DEMO_MODE = False
    no_password = rater("cal-no-password", can_calibrate=True)  # e.g. created by a score import
    no_password.set_unusable_password()
    no_password.save()
    inactive = rater("cal-inactive", can_calibrate=True)
    inactive.is_active = False
    inactive.save()
    demo_account = rater("cal-demo", can_calibrate=True)
    demo_account.groups.add(Group.objects.get_or_create(name=DEMO_GROUP)[0])
    response = _flagged_response()
    response_scores_recompute(response_id=response.pk)
    assert _calibrators(response) == []
    # invited and not yet accepted: the link lets them set a password, so they can log in
    Invitation.objects.create(user=no_password, last_link_at=timezone.now())
    assert [c["user"].username for c in calibrator_choices(response=response)] == ["cal-no-password"]
    response_scores_recompute(response_id=response.pk)
    assert _calibrators(response) == ["cal-no-password"]


def test_an_accepted_invitation_without_a_password_does_not_count(db, settings):
    settings.DEMO_MODE = False
    user = rater("cal-accepted", can_calibrate=True)
    user.set_unusable_password()
    user.save()
    Invitation.objects.create(user=user, last_link_at=timezone.now(), accepted_at=timezone.now())
    response = _flagged_response()
    response_scores_recompute(response_id=response.pk)
    assert _calibrators(response) == []

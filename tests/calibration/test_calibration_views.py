"""Who sees what: the consistency dashboard, drill-down, comparison and settings pages."""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model

from calibration.models import CalibrationDecision
from calibration.services.calibration import response_scores_recompute
from scoring.models import Assignment, ScoringGroup
from studies.models import Response
from studies.rubric import load_rubric
from tests.factories import code_for, mirrored_changes, reference_changes, sheet_submitted

SECRETS = ["A05_FS10", "kimi-k2", "TeamLLM", "rater1", "rater2", "H01", "H02"]


@pytest.fixture
def flagged(demo):
    """A05_FS10 scored by rater1 and rater2 with disagreeing sheets: flagged, sent to 'calibrator'."""
    users = {u.username: u for u in get_user_model().objects.all()}
    response = Response.objects.get(research_id="A05_FS10")
    # seed_demo gave A05_FS10 to the pair rater1 + rater2
    group = ScoringGroup.objects.get(
        study=response.study, scenario=response.scenario, condition=response.condition
    )
    sheet_submitted(users["rater1"], response, reference_changes(3), group=group)
    sheet_submitted(
        users["rater2"], response, mirrored_changes(reference_changes(3), load_rubric()), group=group
    )
    response_scores_recompute(response_id=response.pk)
    calibration = Assignment.objects.get(response=response, role="calibration")
    assert calibration.rater == users["calibrator"]
    return response, calibration, users


def _login(client, username):
    assert client.login(username=username, password="demo-pass-2026")


@pytest.mark.parametrize("username", ["rater1", "calibrator"])
def test_raters_cannot_see_the_dashboard_or_drill_downs(client, flagged, username):
    response, _calibration, _users = flagged
    _login(client, username)
    for url in (
        "/research/agreement/",
        f"/research/agreement/{response.study_id}/scenario/{response.scenario_id}/",
        f"/research/agreement/response/{response.pk}/",
        f"/manage/studies/{response.study_id}/agreement/",
    ):
        assert client.get(url).status_code == 403, url


def test_researchers_see_the_dashboard_but_not_the_settings(client, flagged):
    response, _calibration, _users = flagged
    _login(client, "researcher")
    page = client.get("/research/agreement/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Table 6" in html and "FS10" in html and "rater1 (H01) / rater2 (H02)" in html
    drill = client.get(f"/research/agreement/response/{response.pk}/").content.decode()
    assert "A05_FS10" in drill and "rater1 (H01)" in drill and "Rater A" in drill
    scenario = client.get(f"/research/agreement/{response.study_id}/scenario/{response.scenario_id}/")
    assert scenario.status_code == 200 and "ICC3k" in scenario.content.decode()
    assert client.get(f"/manage/studies/{response.study_id}/agreement/").status_code == 403


def test_dashboard_table6_partial_for_htmx(client, flagged):
    _login(client, "researcher")
    page = client.get("/research/agreement/", HTTP_HX_REQUEST="true")
    html = page.content.decode()
    assert html.lstrip().startswith('<section class="card" id="table6"')
    assert "<html" not in html


def test_calibrator_sees_the_comparison_only_after_submitting_and_blind(client, flagged):
    response, calibration, users = flagged
    _login(client, "calibrator")
    listing = client.get("/calibration/").content.decode()
    assert (
        code_for("calibrator", response) in listing
        and "/calibration/" + code_for("calibrator", response) not in listing
    )
    early = client.get(f"/calibration/{code_for('calibrator', response)}/")
    assert early.status_code == 403
    # the page says why, not that the calibrator lacks a role
    early_html = early.content.decode()
    assert "The comparison opens after you submit your own sheet." in early_html
    assert "does not have the role" not in early_html
    sheet_submitted(users["calibrator"], response, reference_changes(4), assignment=calibration)
    response_scores_recompute(response_id=response.pk)
    page = client.get(f"/calibration/{code_for('calibrator', response)}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Rater A" in html and "Rater B" in html and "Calibrator" in html
    for secret in SECRETS:
        assert secret not in html, secret
    assert "/calibration/" + code_for("calibrator", response) in client.get("/calibration/").content.decode()


def test_calibrator_records_a_reason(client, flagged):
    response, calibration, users = flagged
    sheet_submitted(users["calibrator"], response, reference_changes(4), assignment=calibration)
    _login(client, "calibrator")
    page = client.post(
        f"/calibration/{code_for('calibrator', response)}/", {"reason": "Step 6 was misread by one rater."}
    )
    assert page.status_code == 302
    decision = CalibrationDecision.objects.get(response=response)
    assert decision.reason == "Step 6 was misread by one rater."
    assert decision.decided_by == users["calibrator"] and decision.assignment == calibration


def test_other_raters_get_not_found_for_the_comparison(client, flagged):
    response, _calibration, _users = flagged
    _login(client, "rater1")
    assert client.get(f"/calibration/{code_for('calibrator', response)}/").status_code == 404
    assert client.get("/calibration/UNKNOWN123/").status_code == 404


def test_primary_raters_pages_reveal_nothing(client, flagged):
    response, _calibration, _users = flagged
    _login(client, "rater2")
    for url in ("/scoring/", "/calibration/"):
        html = client.get(url).content.decode()
        for secret in ["A05_FS10", "kimi-k2", "TeamLLM", "rater1", "H01", "calibrator"]:
            assert secret not in html, (url, secret)


def test_admin_sets_the_papers_threshold_in_one_click(client, flagged):
    response, _calibration, _users = flagged
    _login(client, "admin")
    form = client.get(f"/manage/studies/{response.study_id}/agreement/")
    assert "0.70" in form.content.decode()
    page = client.post(
        f"/manage/studies/{response.study_id}/agreement/",
        {
            "agreement_threshold": "0.650",
            "headline_icc": "ICC2k",
            "final_score_rule": "mean_of_three",
            "use_paper_threshold": "1",
        },
    )
    assert page.status_code == 302
    response.study.refresh_from_db()
    assert response.study.agreement_threshold == Decimal("0.700")
    assert (response.study.headline_icc, response.study.final_score_rule) == ("ICC2k", "mean_of_three")
    assert response.agreement.__class__.objects.get(response=response).threshold == Decimal("0.700")


@pytest.mark.parametrize("value", ["-1", "0", "-0.5", "1.5", "5"])
def test_a_threshold_that_cannot_flag_disagreement_is_refused_with_a_message(client, flagged, value):
    response, _calibration, _users = flagged
    _login(client, "admin")
    page = client.post(
        f"/manage/studies/{response.study_id}/agreement/",
        {"agreement_threshold": value, "headline_icc": "ICC3k", "final_score_rule": "calibrator_and_closer"},
    )
    assert page.status_code == 200  # the form again, with the message; nothing saved
    html = page.content.decode()
    assert "above 0 and at most 1" in html
    response.study.refresh_from_db()
    assert response.study.agreement_threshold == Decimal("0.650")


def test_admin_reassigns_the_calibrator(client, flagged):
    response, calibration, users = flagged
    from tests.factories import rater

    other = rater("cal-two", code="H04", can_calibrate=True)
    _login(client, "admin")
    drill = client.get(f"/research/agreement/response/{response.pk}/").content.decode()
    assert "cal-two (H04)" in drill
    page = client.post(f"/research/agreement/response/{response.pk}/calibrator/", {"calibrator": other.pk})
    assert page.status_code == 302
    active = Assignment.objects.get(response=response, role="calibration", archived_at__isnull=True)
    assert active.rater == other
    calibration.refresh_from_db()
    assert calibration.archived_at is not None
    # A pair member cannot be chosen.
    client.post(f"/research/agreement/response/{response.pk}/calibrator/", {"calibrator": users["rater1"].pk})
    assert (
        Assignment.objects.get(response=response, role="calibration", archived_at__isnull=True).rater == other
    )


def test_the_calibrators_queue_lists_their_calibration_sheets(client, flagged):
    """Issue 42: /scoring/ said "Nothing assigned" while /calibration/ listed the sheets."""
    response, _calibration, _users = flagged
    _login(client, "calibrator")
    queue = client.get("/scoring/").content.decode()
    assert code_for("calibrator", response) in queue
    assert "Nothing assigned to you yet" not in queue

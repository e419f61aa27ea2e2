"""Qualification on the training set: the trainee's pages, feedback, retries, the gate on
live assignment and the admin's override."""

import json

import pytest

from scoring.models import Assignment, ScoringGroup
from scoring.services.assignments import AssignmentError, group_assign_pair, plan_for_study
from studies.models import AuditEvent, Condition, Scenario
from studies.rubric import load_rubric
from tests.factories import SHEET_TEXTS, code_for, mirrored_changes, rater, reference_changes
from training.models import RaterQualification, TrainingResponse
from training.services.qualification import (
    qualification_override,
    qualification_override_revoke,
    training_settings_update,
)
from training.services.training_set import TrainingError

pytestmark = pytest.mark.django_db
PASSWORD = "pw-training-2026"


def _trainee(client, username, code):
    user = rater(username, code)
    user.set_password(PASSWORD)
    user.save()
    client.login(username=username, password=PASSWORD)
    return user


def _score(client, code, changes):
    """Save and submit through the training endpoints, as the page does."""
    page = client.get(f"/training/{code}/")
    assert page.status_code == 200
    data = json.loads(page.context["script"].__class__ and json.dumps(page.context["script"]))
    assert data["save_url"] == f"/training/{code}/save/" and data["submit_url"] == f"/training/{code}/submit/"
    body = {"sheet": data["sheet"], "batch_id": "b1", "expected_version": data["version"],
            "changes": [[p, v] for p, v in [*changes, *SHEET_TEXTS]]}  # fmt: skip
    saved = client.post(data["save_url"], data=json.dumps(body), content_type="application/json")
    assert saved.status_code == 200, saved.content
    submitted = client.post(
        data["submit_url"],
        data=json.dumps({"sheet": data["sheet"], "expected_version": saved.json()["version"]}),
        content_type="application/json",
    )
    assert submitted.status_code == 200, submitted.content
    return submitted.json()


def _training_code(client, study):
    client.post(f"/training/study/{study.pk}/start/")
    home = client.get("/training/")
    [item] = home.context["studies"][0]["items"]
    return item["code"]


def test_a_trainee_fails_sees_why_scores_again_and_qualifies(client, gold):
    study = gold.study
    trainee = _trainee(client, "trainee", "H09")
    code = _training_code(client, study)
    assert code == code_for(trainee, gold.response)

    reply = _score(client, code, mirrored_changes(reference_changes(3), load_rubric()))
    assert reply["redirect"] == f"/training/{code}/feedback/"
    feedback = client.get(reply["redirect"])
    html = feedback.content.decode()
    assert feedback.status_code == 200 and "Below the threshold" in html
    assert "Not yet qualified: 0 of 1 training sheets passed." in html
    assert len(feedback.context["missed"]) == 3 and feedback.context["missed"][0]["guideline"]
    assert "116.5" in html  # the reference total beside theirs
    q = RaterQualification.objects.get(rater=trainee, study=study)
    assert (q.passed, q.attempts, q.qualified_at) == (0, 1, None)

    # not offered for live work
    fs10, a = Scenario.objects.get(code="FS10"), Condition.objects.get(letter="B")
    partner = rater("partner", "H10")
    qualification_override(rater=partner, study=study, actor=None, reason="senior rater")
    with pytest.raises(AssignmentError, match="Not yet qualified on this study's training set: trainee"):
        group_assign_pair(study=study, scenario=fs10, conditions=[a], rater_a=trainee, rater_b=partner)
    with pytest.raises(AssignmentError, match="trainee"):
        plan_for_study(study=study, scenarios=[fs10], conditions=[a], raters=[trainee, partner])
    assert not ScoringGroup.objects.filter(condition=a).exists()

    # score it again: the failed sheet stays (an attempt), a fresh one opens
    again = client.post(f"/training/{code}/again/")
    fresh = Assignment.objects.get(rater=trainee, role="training", archived_at__isnull=True)
    assert fresh.blind_code != code  # each attempt has its own code
    assert again.status_code == 302 and again.url == f"/training/{fresh.blind_code}/"
    code = fresh.blind_code
    assert Assignment.objects.filter(rater=trainee, role="training").count() == 2
    reply = _score(client, code, reference_changes(4))  # H02's own sheet: close to the mean
    html = client.get(reply["redirect"]).content.decode()
    assert "Passed" in html and "You are qualified for live scoring in this study." in html
    q.refresh_from_db()
    assert (q.passed, q.attempts) == (1, 2) and q.qualified_at is not None
    group_assign_pair(study=study, scenario=fs10, conditions=[a], rater_a=trainee, rater_b=partner)
    assert ScoringGroup.objects.filter(condition=a, rater_a=trainee).exists()


def test_an_admin_override_needs_a_reason_and_is_kept(gold, admin_user):
    study = gold.study
    trainee = rater("trainee", "H09")
    with pytest.raises(TrainingError):
        qualification_override(rater=trainee, study=study, actor=admin_user, reason="  ")
    assert not RaterQualification.objects.filter(rater=trainee).exists()
    qualification_override(rater=trainee, study=study, actor=admin_user, reason="scored the pilot")
    q = RaterQualification.objects.get(rater=trainee, study=study)
    assert q.may_score_live and q.override_by == admin_user and q.override_reason == "scored the pilot"
    assert q.qualified_at is None and q.override_at is not None
    # every override and revocation is in the audit trail, the earlier reasons kept (hostile pass 13)
    qualification_override(rater=trainee, study=study, actor=admin_user, reason="senior rater")
    qualification_override_revoke(rater=trainee, study=study, actor=admin_user, reason="left the lab")
    events = AuditEvent.objects.filter(target=f"auth.user:{trainee.pk}", study=study).order_by("at", "pk")
    assert [(e.action, e.reason) for e in events] == [
        ("training.override", "scored the pilot"),
        ("training.override", "senior rater"),
        ("training.override_revoked", "left the lab"),
    ]
    assert not RaterQualification.objects.get(rater=trainee, study=study).may_score_live


def test_raising_the_threshold_requalifies_every_trainee(client, gold):
    study = gold.study
    trainee = _trainee(client, "trainee", "H09")
    _score(client, _training_code(client, study), reference_changes(4))
    q = RaterQualification.objects.get(rater=trainee, study=study)
    assert q.qualified_at is not None
    training_settings_update(study=study, threshold=None, required_sheets=2)  # only one training response
    q.refresh_from_db()
    assert q.qualified_at is None and q.passed == 1


def test_a_study_without_training_set_offers_every_rater(demo):
    fs10, b = Scenario.objects.get(code="FS10"), Condition.objects.get(letter="B")
    one, two = rater("one", "H11"), rater("two", "H12")
    group_assign_pair(study=demo.study, scenario=fs10, conditions=[b], rater_a=one, rater_b=two)
    assert ScoringGroup.objects.filter(rater_a=one).exists()


def test_a_training_code_on_the_live_page_and_a_live_code_on_the_training_page(client, gold):
    study = gold.study
    _trainee(client, "trainee", "H09")
    code = _training_code(client, study)
    live = client.get(f"/scoring/{code}/")
    assert live.status_code == 409 and "belongs to your training set" in live.content.decode()
    saved = client.post(f"/scoring/{code}/save/", data="{}", content_type="application/json")
    assert saved.status_code == 404
    # the live response it was copied from, on the training pages: refused, nothing opened
    source = gold.source.blind_code
    for url in (f"/training/{source}/", f"/training/{source}/feedback/"):
        reply = client.get(url)
        assert reply.status_code == 404 and "is not one of your training responses" in reply.content.decode()
    assert (
        client.post(f"/training/{source}/save/", data="{}", content_type="application/json").status_code
        == 404
    )
    assert client.post(f"/training/{source}/again/").status_code == 404
    assert not Assignment.objects.filter(response=gold.source, rater__username="trainee").exists()


def test_the_admin_page_marks_gold_and_refuses_a_response_without_reference(
    client, scored_demo, admin_client
):
    study = scored_demo.study
    page = admin_client.get(f"/manage/training/?study={study.pk}")
    assert page.status_code == 200 and "No training set yet" in page.content.decode()
    reply = admin_client.post(
        "/manage/training/gold/", {"study": study.pk, "research_id": "A05_FS10", "raters": "H01"}, follow=True
    )
    html = reply.content.decode()
    assert "A05_FS10 is in the training set (mean of H01)." in html
    reply = admin_client.post(
        "/manage/training/gold/", {"study": study.pk, "research_id": "B01_FS10"}, follow=True
    )
    assert "The study has no response B01_FS10." in reply.content.decode()
    reply = admin_client.post(
        "/manage/training/override/", {"study": study.pk, "rater": "", "reason": ""}, follow=True
    )
    assert reply.status_code == 200
    assert client.get("/manage/training/").status_code == 302  # anonymous: to the login


def test_the_assignment_page_refuses_an_unqualified_rater_with_a_message(gold, admin_client):
    study = gold.study
    trainee, partner = rater("trainee", "H09"), rater("partner", "H10")
    fs10, b = Scenario.objects.get(code="FS10"), Condition.objects.get(letter="B")
    data = {
        "study": study.pk,
        "scenario": fs10.pk,
        "conditions": [b.pk],
        "rater_a": trainee.pk,
        "rater_b": partner.pk,
    }
    reply = admin_client.post("/manage/assignments/", data)
    assert reply.status_code == 200
    assert "Not yet qualified on this study&#x27;s training set: trainee, partner." in reply.content.decode()
    assert not ScoringGroup.objects.filter(condition=b).exists()
    qualification_override(rater=trainee, study=study, actor=None, reason="pilot")
    qualification_override(rater=partner, study=study, actor=None, reason="pilot")
    assert admin_client.post("/manage/assignments/", data).status_code == 302
    assert ScoringGroup.objects.filter(condition=b, rater_a=trainee).exists()


def test_the_assignment_pages_list_who_is_not_yet_qualified(gold, admin_client):
    study = gold.study
    rater("trainee", "H09")
    cleared = rater("partner", "H10")
    qualification_override(rater=cleared, study=study, actor=None, reason="pilot")
    for url in ("/manage/assignments/", "/manage/assignments/auto/"):
        html = admin_client.get(url).content.decode()
        listed = html.split('id="unqualified"', 1)[1].split("</div>", 1)[0]
        assert f"{study.name}:" in listed and "trainee" in listed and "partner" not in listed


def test_the_feedback_names_the_scenario_in_the_raters_language(client, gold, settings):
    Scenario.objects.filter(pk=gold.response.scenario_id).update(theme_zh="海洋浓汤")
    _trainee(client, "trainee-zh", "H19")
    code = _training_code(client, gold.study)
    reply = _score(client, code, mirrored_changes(reference_changes(3), load_rubric()))
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "zh-hans"
    assert "海洋浓汤" in client.get(reply["redirect"]).content.decode()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    html = client.get(reply["redirect"]).content.decode()
    assert "Ocean Soup" in html and "海洋浓汤" not in html


def test_a_training_sheet_keeps_its_active_time(client, gold):
    """Issue 42: the training page reported its active time to the live endpoint, which answered
    404; its own endpoint now stores it, and refuses what is not the trainee's."""
    from scoring.models import ScoreSheet

    _trainee(client, "trainee", "H09")
    code = _training_code(client, gold.study)
    page = client.get(f"/training/{code}/")
    script = page.context["script"]
    assert script["time_url"] == f"/training/{code}/time/"
    from datetime import timedelta

    from django.utils import timezone

    # as if opened two minutes ago (a report adds at most the time since the last)
    opened = timezone.now() - timedelta(seconds=120)
    ScoreSheet.objects.filter(pk=script["sheet"]).update(created_at=opened, active_reported_at=None)
    report = {"sheet": script["sheet"], "seconds": 30}
    reply = client.post(script["time_url"], data=json.dumps(report), content_type="application/json")
    assert reply.status_code == 200 and reply.json() == {"ok": True}
    assert ScoreSheet.objects.get(pk=script["sheet"]).active_seconds == 30
    # the live endpoint still knows no training code, and another rater reaches nothing
    assert (
        client.post(
            f"/scoring/{code}/time/", data=json.dumps(report), content_type="application/json"
        ).status_code
        == 404
    )
    _trainee(client, "other", "H10")
    assert (
        client.post(script["time_url"], data=json.dumps(report), content_type="application/json").status_code
        == 404
    )
    assert ScoreSheet.objects.get(pk=script["sheet"]).active_seconds == 30


def test_a_response_still_being_scored_is_no_default_gold(scored_demo, admin_client):
    """Hostile pass 25: with one sheet of the pair reopened, "its pair" was the other rater's sheet
    alone, shown in full to every trainee while the response was still being scored."""
    from scoring.models import ScoreSheet

    study = scored_demo.study
    reopened = ScoreSheet.objects.filter(
        assignment__response__research_id="A05_FS10", assignment__rater__rater_profile__rater_code="H02"
    )
    assert reopened.update(status="draft") == 1
    reply = admin_client.post(
        "/manage/training/gold/", {"study": study.pk, "research_id": "A05_FS10"}, follow=True
    )
    assert "A05_FS10 is still being scored" in reply.content.decode()
    assert not TrainingResponse.objects.exists()
    # named reference raters: the admin's choice
    reply = admin_client.post(
        "/manage/training/gold/", {"study": study.pk, "research_id": "A05_FS10", "raters": "H01"}, follow=True
    )
    assert "A05_FS10 is in the training set (mean of H01)." in reply.content.decode()

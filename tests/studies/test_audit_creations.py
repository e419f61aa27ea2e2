"""Creations that change a study are audited like its edits (issue 36, hostile pass N3):
study creation, judge creation (with the inactive account it makes), TeamFusion member
profiles, response imports from the page and the API."""

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from api.services.tokens import token_create
from generation.models import PreferenceProfile
from judging.models import Judge
from judging.prompt import CURRENT_PROMPT_VERSION
from studies.models import AuditEvent, ModelEndpoint, Study
from tests.studies.test_responses_import import _record

pytestmark = pytest.mark.django_db


def _events(action):
    return list(AuditEvent.objects.filter(action=action).order_by("pk"))


def test_a_study_made_on_the_page_is_audited(demo, admin_client):
    response = admin_client.post("/manage/studies/", {"name": "Audited study", "template": "empty"})
    assert response.status_code == 302
    (event,) = _events("study.create")
    study = Study.objects.get(name="Audited study")
    assert event.actor.username == "admin" and event.study == study
    assert event.changes == {
        "name": [None, "Audited study"],
        "template": [None, "empty"],
        "response_language": [None, "zh"],
        "rubric_version": [None, "cgpst-v1"],
        "task_kind": [None, "cgpst"],
        "pairs_from": [None, None],
    }


def test_a_judge_made_by_a_researcher_is_audited_with_its_account(demo):
    client = Client()
    researcher = get_user_model().objects.get(username="researcher")
    client.force_login(researcher)
    endpoint = ModelEndpoint.objects.filter(is_active=True).exclude(base_url="").first()
    response = client.post(
        "/manage/judges/",
        {
            "form": "judge",
            "judge-name": "audited judge",
            "judge-endpoint": endpoint.pk,
            "judge-prompt_version": CURRENT_PROMPT_VERSION,
            "judge-structured_output": "on",
            "judge-temperature": "0",
            "judge-samples": "1",
        },
    )
    assert response.status_code in (200, 302)
    judge = Judge.objects.get(name="audited judge")
    (event,) = _events("judge.create")
    assert event.actor == researcher and event.changes["account"] == [None, judge.user.username]
    assert event.changes["endpoint"] == [None, endpoint.name]


def test_member_profiles_are_audited_when_made_changed_and_deleted(demo, admin_client):
    study = Study.objects.get(name="CGPST demo")
    url = f"/manage/generation/studies/{study.pk}/members/"
    fields = {"name": "Ada", "preferences": "Fewer cars.", "order": "1", "is_active": "on"}
    assert admin_client.post(url, fields).status_code == 302
    profile = PreferenceProfile.objects.get(study=study, name="Ada")
    assert (
        admin_client.post(f"{url}?edit={profile.pk}", {**fields, "preferences": "More trees."}).status_code
        == 302
    )
    assert admin_client.post(f"{url}{profile.pk}/delete/").status_code == 302
    created, updated, deleted = (
        _events("member_profile.create"),
        _events("member_profile.update"),
        _events("member_profile.delete"),
    )
    assert created[0].changes["preferences"] == [None, "Fewer cars."] and created[0].study == study
    assert updated[0].changes == {"preferences": ["Fewer cars.", "More trees."]}
    assert deleted[0].changes["name"] == ["Ada", None] and deleted[0].actor.username == "admin"


def test_response_imports_are_audited_from_the_page_and_the_api(demo, admin_client):
    study = Study.objects.get(name="CGPST demo")
    upload = SimpleUploadedFile(
        "responses.jsonl", json.dumps(_record("B05_FS10"), ensure_ascii=False).encode(), "application/json"
    )
    page = admin_client.post(
        f"/manage/studies/{study.pk}/responses/import/", {"file": upload, "create_missing": "on"}
    )
    assert page.status_code in (200, 302)
    token = token_create(user=get_user_model().objects.get(username="admin"), name="t", scope="write", days=1)
    api = Client(HTTP_AUTHORIZATION=f"Bearer {token.plain}")
    created = api.post(
        f"/api/v1/studies/{study.pk}/responses/import",
        {"content": json.dumps(_record("D05_FS10"), ensure_ascii=False), "create_missing": True},
        content_type="application/json",
    )
    assert created.status_code == 201, created.content
    by_page, by_api = _events("responses.import")
    assert by_page.reason == "responses import page" and by_page.changes["created"] == ["B05_FS10"]
    assert by_api.reason == "API" and by_api.changes["created"] == ["D05_FS10"]
    assert by_page.actor.username == by_api.actor.username == "admin"
    # an import that changes nothing records nothing
    api.post(
        f"/api/v1/studies/{study.pk}/responses/import",
        {"content": json.dumps(_record("D05_FS10"), ensure_ascii=False), "create_missing": True},
        content_type="application/json",
    )
    assert len(_events("responses.import")) == 2


def test_a_pair_given_a_scenario_and_put_in_another_pairs_place_is_audited(demo):
    from scoring.services.assignments import group_assign_pair, group_reassign
    from studies.models import Condition, Scenario

    users = get_user_model().objects
    admin = users.get(username="admin")
    study = Study.objects.get(name="CGPST demo")
    condition = Condition.objects.exclude(letter="A").order_by("letter").first()
    (group,) = group_assign_pair(
        study=study,
        scenario=Scenario.objects.get(study=study, code="FS10"),
        conditions=[condition],
        rater_a=users.get(username="rater1"),
        rater_b=users.get(username="rater2"),
        actor=admin,
    )
    (created,) = _events("group.create")
    assert created.actor == admin and created.study == study
    assert created.changes == {
        "scenario": [None, "FS10"],
        "condition": [None, condition.letter],
        "pair": [None, ["rater1", "rater2"]],
    }
    calibrator = users.get(username="calibrator")
    group_reassign(
        group=group, rater_a=users.get(username="rater1"), rater_b=calibrator, actor=admin, reason="r2 left"
    )
    (moved,) = _events("group.reassign")
    assert (
        moved.changes["pair"] == [["rater1", "rater2"], ["rater1", "calibrator"]]
        and moved.reason == "r2 left"
    )

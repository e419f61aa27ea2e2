"""Every view of the rater workspace and the assignment pages, for anonymous,
the rater who owns the sheet, another rater, a researcher and an admin."""

import json

import pytest
from django.contrib.auth import get_user_model

from scoring.models import Assignment, ScoringGroup
from scoring.services.sheets import sheet_open
from studies.models import Response
from tests.factories import UserFactory, code_for, rater

ROLES = ["anonymous", "rater", "other_rater", "researcher", "admin"]
# view -> expected status per role (302 for anonymous = sent to the login page)
EXPECTED = {
    "queue": (302, 200, 200, 403, 403),
    "sheet": (302, 200, 404, 403, 403),
    "sheet_save": (302, 200, 404, 403, 403),
    "sheet_submit": (302, 400, 404, 403, 403),
    "admin_home": (302, 403, 403, 403, 200),
    "assignments": (302, 403, 403, 403, 200),
    "assignments_post": (302, 403, 403, 403, 200),
    "auto_assign": (302, 403, 403, 403, 200),
    "auto_assign_apply": (302, 403, 403, 403, 302),
    "sync_assignments": (302, 403, 403, 403, 302),
    "workload": (302, 403, 403, 403, 200),
    "group": (302, 403, 403, 403, 200),
    "sheet_admin": (302, 403, 403, 403, 200),
    "assignment_archive": (302, 403, 403, 403, 302),
}


def _requests(code, group_id, sheet_id, assignment_id):
    save = json.dumps(
        {"sheet": sheet_id, "batch_id": "auth", "expected_version": 0, "changes": [["dims.s2.purpose", 3]]}
    )
    return {
        "queue": ("get", "/scoring/", None),
        "sheet": ("get", f"/scoring/{code}/", None),
        "sheet_save": ("post_json", f"/scoring/{code}/save/", save),
        "sheet_submit": (
            "post_json",
            f"/scoring/{code}/submit/",
            json.dumps({"sheet": sheet_id, "expected_version": 1}),
        ),
        "admin_home": ("get", "/manage/", None),
        "assignments": ("get", "/manage/assignments/", None),
        "assignments_post": ("post", "/manage/assignments/", {}),
        "auto_assign": ("get", "/manage/assignments/auto/", None),
        "auto_assign_apply": ("post", "/manage/assignments/auto/apply/", {"plan": "x"}),
        "sync_assignments": ("post", "/manage/assignments/sync/", {}),
        "workload": ("get", "/manage/workload/", None),
        "group": ("get", f"/manage/assignments/groups/{group_id}/", None),
        "sheet_admin": ("get", f"/manage/sheets/{sheet_id}/", None),
        "assignment_archive": (
            "post",
            f"/manage/assignments/{assignment_id}/archive/",
            {"reason": "auth test"},
        ),
    }


@pytest.mark.django_db
@pytest.mark.parametrize("role_index,role", list(enumerate(ROLES)))
def test_every_view_answers_each_role_as_expected(client, demo, role_index, role):
    response = Response.objects.get(research_id="A05_FS10")
    owner = Assignment.objects.get(rater__username="rater1", response=response)
    sheet = sheet_open(assignment=owner, actor=owner.rater)
    group = ScoringGroup.objects.get()
    rater("outsider", "H09")
    UserFactory(username="someone")
    users = {"rater": "rater1", "other_rater": "outsider", "researcher": "researcher", "admin": "admin"}
    if role in users:
        client.force_login(get_user_model().objects.get(username=users[role]))
    requests = _requests(owner.blind_code, group.pk, sheet.pk, owner.pk)
    for name, (method, url, body) in requests.items():  # archive is last: it changes the data
        if method == "get":
            reply = client.get(url)
        elif method == "post_json":
            reply = client.post(url, data=body, content_type="application/json")
        else:
            reply = client.post(url, body)
        expected = EXPECTED[name][role_index]
        assert reply.status_code == expected, (name, role, reply.status_code)
        if role == "anonymous":
            assert reply["Location"].startswith("/accounts/login/")
    owner.refresh_from_db()
    assert (owner.archived_at is not None) == (role == "admin")


@pytest.mark.django_db
def test_get_only_and_post_only_views_refuse_other_methods(client, demo):
    code = code_for("rater1", Response.objects.get(research_id="A05_FS10"))
    client.login(username="rater1", password="demo-pass-2026")
    assert client.post(f"/scoring/{code}/").status_code == 405
    assert client.get(f"/scoring/{code}/save/").status_code == 405
    assert client.get(f"/scoring/{code}/submit/").status_code == 405

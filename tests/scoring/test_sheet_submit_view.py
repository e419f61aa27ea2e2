"""Submitting through the page: completeness check with links to what is missing."""

import json

import pytest

from scoring.models import ScoreSheet, SheetEvent
from scoring.score_files import data_a_changes
from studies.models import Response
from studies.rubric import load_rubric
from tests.factories import code_for, own_sheet_id


def _post(client, url, payload):
    return client.post(url, data=json.dumps(payload), content_type="application/json")


@pytest.mark.django_db
def test_sheet_submit_view_lists_what_is_missing_with_control_ids(client, demo, data_a):
    code = code_for("rater2", Response.objects.get(research_id="A05_FS10"))
    client.login(username="rater2", password="demo-pass-2026")
    page = client.get(f"/scoring/{code}/").content.decode()
    changes = [list(c) for c in data_a_changes(data_a[0][4], load_rubric()) if c[0] != "dims.s2.focus"]
    version = _post(
        client,
        f"/scoring/{code}/save/",
        {"sheet": own_sheet_id(client, code), "batch_id": "a", "expected_version": 0, "changes": changes},
    ).json()["version"]
    reply = _post(
        client, f"/scoring/{code}/submit/", {"sheet": own_sheet_id(client, code), "expected_version": version}
    )
    assert reply.status_code == 400
    missing = reply.json()["missing"]
    assert {m["path"] for m in missing} == {
        "dims.s2.focus",
        "texts.condition_phrase",
        "texts.stem",
        "texts.kvp",
        "texts.purpose",
    }
    for m in missing:
        assert f'id="{m["id"]}"' in page  # each entry links to a control on the page
        assert m["label"].startswith("Step 2")
    sheet = ScoreSheet.objects.get(assignment__rater__username="rater2")
    assert sheet.status == "draft"


@pytest.mark.django_db
def test_sheet_submit_view_submits_a_complete_sheet_once(client, demo, data_a):
    code = code_for("rater2", Response.objects.get(research_id="A05_FS10"))
    client.login(username="rater2", password="demo-pass-2026")
    client.get(f"/scoring/{code}/")
    changes = [list(c) for c in data_a_changes(data_a[0][4], load_rubric())]
    changes += [[f"texts.{k}", "copied"] for k in ("condition_phrase", "stem", "kvp", "purpose")]
    version = _post(
        client,
        f"/scoring/{code}/save/",
        {"sheet": own_sheet_id(client, code), "batch_id": "a", "expected_version": 0, "changes": changes},
    ).json()["version"]
    stale = _post(
        client,
        f"/scoring/{code}/submit/",
        {"sheet": own_sheet_id(client, code), "expected_version": version - 1},
    )
    assert stale.status_code == 409
    reply = _post(
        client, f"/scoring/{code}/submit/", {"sheet": own_sheet_id(client, code), "expected_version": version}
    )
    assert reply.status_code == 200 and reply.json()["overall"] == 117
    again = _post(
        client, f"/scoring/{code}/submit/", {"sheet": own_sheet_id(client, code), "expected_version": version}
    )
    assert again.status_code == 200  # a double submit is harmless
    sheet = ScoreSheet.objects.get(assignment__rater__username="rater2")
    assert sheet.status == "submitted" and sheet.overall == 117
    assert SheetEvent.objects.filter(sheet=sheet, kind="submit").count() == 1


@pytest.mark.django_db
def test_admin_reopens_a_submitted_sheet_with_a_reason(client, demo, data_a):
    code = code_for("rater2", Response.objects.get(research_id="A05_FS10"))
    client.login(username="rater2", password="demo-pass-2026")
    client.get(f"/scoring/{code}/")
    changes = [list(c) for c in data_a_changes(data_a[0][4], load_rubric())]
    changes += [[f"texts.{k}", "copied"] for k in ("condition_phrase", "stem", "kvp", "purpose")]
    version = _post(
        client,
        f"/scoring/{code}/save/",
        {"sheet": own_sheet_id(client, code), "batch_id": "a", "expected_version": 0, "changes": changes},
    ).json()["version"]
    assert (
        _post(
            client,
            f"/scoring/{code}/submit/",
            {"sheet": own_sheet_id(client, code), "expected_version": version},
        ).status_code
        == 200
    )
    sheet = ScoreSheet.objects.get(assignment__rater__username="rater2")
    client.logout()
    client.login(username="admin", password="demo-pass-2026")
    assert client.post(f"/manage/sheets/{sheet.pk}/", {"reason": ""}).status_code == 200  # reason required
    sheet.refresh_from_db()
    assert sheet.status == "submitted"
    client.post(f"/manage/sheets/{sheet.pk}/", {"reason": "rater asked to fix Step 6"})
    sheet.refresh_from_db()
    assert sheet.status == "draft"
    event = SheetEvent.objects.get(sheet=sheet, kind="reopen")
    assert event.note == "rater asked to fix Step 6" and event.actor.username == "admin"
    audit = client.get(f"/manage/sheets/{sheet.pk}/").content.decode()
    assert "rater asked to fix Step 6" in audit

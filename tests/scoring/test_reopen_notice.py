"""A reopened sheet tells its rater who reopened it, when and why; the queue says
"Reopened"; the other rater of the pair sees nothing of it, and the notice goes
once the sheet is submitted again."""

import json

import pytest

from scoring.models import ScoreSheet
from scoring.score_files import data_a_changes
from studies.models import Response
from studies.rubric import load_rubric
from tests.factories import code_for, own_sheet_id

pytestmark = pytest.mark.django_db
REASON = "Step 6 development was scored on the wrong scale"


def _post(client, url, payload):
    return client.post(url, data=json.dumps(payload), content_type="application/json")


def _submit(client, code, data_a, expected_version):
    changes = [list(c) for c in data_a_changes(data_a[0][4], load_rubric())]
    changes += [[f"texts.{k}", "copied"] for k in ("condition_phrase", "stem", "kvp", "purpose")]
    sheet_id = own_sheet_id(client, code)
    version = _post(
        client,
        f"/scoring/{code}/save/",
        {
            "sheet": sheet_id,
            "batch_id": f"b{expected_version}",
            "expected_version": expected_version,
            "changes": changes,
        },
    ).json()["version"]
    reply = _post(client, f"/scoring/{code}/submit/", {"sheet": sheet_id, "expected_version": version})
    assert reply.status_code == 200


def test_the_rater_of_a_reopened_sheet_sees_who_reopened_it_when_and_why(client, demo, data_a):
    code = code_for("rater1", Response.objects.get(research_id="A05_FS10"))
    client.login(username="rater1", password="demo-pass-2026")
    client.get(f"/scoring/{code}/")
    _submit(client, code, data_a, 0)
    assert "Reopened" not in client.get("/scoring/").content.decode()
    client.logout()

    sheet = ScoreSheet.objects.get(assignment__rater__username="rater1")
    client.login(username="admin", password="demo-pass-2026")
    client.post(f"/manage/sheets/{sheet.pk}/", {"reason": REASON})
    client.logout()

    client.login(username="rater1", password="demo-pass-2026")
    page = client.get(f"/scoring/{code}/").content.decode()
    assert 'id="reopen-notice"' in page
    assert "Reopened by admin on " in page and REASON in page
    assert "rater2" not in page  # nothing about the other rater
    queue = client.get("/scoring/").content.decode()
    assert "Reopened" in queue and "Draft" not in queue

    sheet.refresh_from_db()
    _submit(client, code, data_a, sheet.version)
    page = client.get(f"/scoring/{code}/").content.decode()
    assert 'id="reopen-notice"' not in page and REASON not in page
    assert "Reopened" not in client.get("/scoring/").content.decode()
    client.logout()

    # the other rater of the pair: no notice, no reason
    client.login(username="rater2", password="demo-pass-2026")
    page = client.get(f"/scoring/{code}/").content.decode()
    assert 'id="reopen-notice"' not in page and REASON not in page

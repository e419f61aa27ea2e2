"""The autosave endpoint (POST /scoring/<blind_code>/save/): the HTTP path to
sheet_apply_changes, with validation, optimistic locking and idempotent re-sends."""

import json

import pytest

from scoring.models import Assignment, ScoreSheet, SheetEvent
from scoring.score_files import data_a_changes
from scoring.selectors import sheet_entries_get
from studies.models import Response
from studies.rubric import load_rubric
from tests.factories import assign, code_for, own_sheet_id, rater


def _stored(sheet):
    """The sheet's entries as stored now (a draft's are on the sheet, its rows come at submit)."""
    return sheet_entries_get(sheet=ScoreSheet.all_objects.get(pk=sheet.pk))


EXPECTED = {
    3: ({"1": 24, "2": 22, "3": 30, "4": 11, "5": 4, "6": 25}, 116),
    4: ({"1": 28, "2": 22, "3": 32, "4": 13, "5": 4, "6": 18}, 117),
}


def save(client, code, changes, version, batch_id="b1"):
    return client.post(
        f"/scoring/{code}/save/",
        data=json.dumps(
            {
                "sheet": own_sheet_id(client, code),
                "batch_id": batch_id,
                "expected_version": version,
                "changes": changes,
            }
        ),
        content_type="application/json",
    )


@pytest.fixture
def sheet_setup(demo, client):
    response = Response.objects.get(research_id="A05_FS10")
    client.login(username="rater1", password="demo-pass-2026")
    assert client.get(f"/scoring/{code_for('rater1', response)}/").status_code == 200  # opens the sheet
    return Assignment.objects.get(rater__username="rater1", response=response)  # rater1's own code


@pytest.mark.django_db
@pytest.mark.parametrize("index", [3, 4])
def test_sheet_save_of_the_study_item_scores_gives_the_study_totals(client, sheet_setup, data_a, index):
    changes = [list(c) for c in data_a_changes(data_a[0][index], load_rubric())]
    # sent in several autosave batches, as the page does
    version = 0
    body = None
    for n, start in enumerate(range(0, len(changes), 7)):
        reply = save(client, sheet_setup.blind_code, changes[start : start + 7], version, batch_id=f"b{n}")
        assert reply.status_code == 200, reply.content
        body = reply.json()
        version = body["version"]
    steps, overall = EXPECTED[index]
    assert body["totals"]["steps"] == steps
    assert body["totals"]["overall"] == overall
    sheet = ScoreSheet.objects.get(assignment=sheet_setup)
    assert sheet.overall == overall
    assert sheet.version == version
    # the page shows the same totals after a reload
    page = client.get(f"/scoring/{sheet_setup.blind_code}/").content.decode()
    assert f'id="total-overall" data-total="overall">{overall}<' in page


@pytest.mark.django_db
@pytest.mark.parametrize(
    "change",
    [
        ["dims.s2.focus", 11],
        ["dims.s6.development", 0],
        ["dims.s5.correctly_used", "five"],
        ["items.1.1.elaboration", 2],  # item 1 is not a Yes item yet
        ["items.1.1.classification", "Not a category"],
        ["items.3.1.classification", "invalid:solution"],  # Step 3 has no Solution type
        ["dims.s1.fluency", 3],  # computed, never typed
        ["items.9.1.comment", "x"],
        ["texts.kvp", "x" * 5000],
        # isdigit() is true for these, int() refuses them (they were a 500)
        ["dims.s2.focus", "²"],
        ["dims.s6.development", "⑦"],
        ["items.4.1.relevance", "٣"],
        ["dims.s2.focus", 1e300],
        # a lone surrogate cannot be stored (PostgreSQL refused it: a 500)
        ["comments.1", "ok \ud800"],
        ["items.1.2.comment", "\udfff"],
    ],
)
def test_sheet_save_refuses_bad_values_and_changes_nothing(client, sheet_setup, change):
    good = ["dims.s2.purpose", 3]
    reply = save(client, sheet_setup.blind_code, [good, change], 0)
    assert reply.status_code == 422
    body = reply.json()
    assert body["ok"] is False and body["errors"][0]["path"] == change[0]
    assert body["errors"][0]["message"]
    sheet = ScoreSheet.objects.get(assignment=sheet_setup)
    assert sheet.version == 0
    assert not SheetEvent.objects.filter(sheet=sheet, kind="change").exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body",
    [b"not json", b"[]", b'{"batch_id": "x y", "expected_version": 0, "changes": [["dims.s2.purpose", 3]]}',
     b'{"batch_id": "b", "expected_version": -1, "changes": [["dims.s2.purpose", 3]]}',
     b'{"batch_id": "b", "expected_version": 0, "changes": [["dims.s2.purpose"]]}',
     b'{"batch_id": "b", "expected_version": 0, "changes": []}'],
)  # fmt: skip
def test_sheet_save_refuses_malformed_requests(client, sheet_setup, body):
    reply = client.post(
        f"/scoring/{sheet_setup.blind_code}/save/", data=body, content_type="application/json"
    )
    assert reply.status_code == 422
    assert ScoreSheet.objects.get(assignment__rater__username="rater1").version == 0


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"[" * 100_000, "The request body is nested too deeply."),
        (b'{"batch_id": "b", "expected_version": 0, "changes": [["comments.1", NaN]]}',
         "The request body is not valid JSON."),
        (b'{"batch_id": "b", "expected_version": 0, "changes": [["dims.s2.focus", 1e999]]}',
         "The request body is not valid JSON."),
        (b'{"batch_id": "b", "expected_version": 0, "changes": [["comments.1", "\xed\xa0\x80"]]}',
         "The request body is not UTF-8 text."),
        (b'{"batch_id": "b", "expected_version": 0, "changes": "[[\\"dims.s2.purpose\\", 3]]"}',
         "Malformed save request."),
        (b'{"batch_id": "b", "expected_version": 99999999999999, "changes": [["dims.s2.purpose", 3]]}',
         "Malformed save request."),
    ],
)  # fmt: skip
def test_sheet_save_refuses_bodies_that_were_a_500_with_a_message(client, sheet_setup, body, message):
    """Deep nesting raised RecursionError; NaN/Infinity and encoded surrogates reached the values."""
    urls = [f"/scoring/{sheet_setup.blind_code}/save/"]
    if "request body" in message:  # refused before the fields are read: submit too
        urls.append(f"/scoring/{sheet_setup.blind_code}/submit/")
    for url in urls:
        reply = client.post(url, data=body, content_type="application/json")
        assert reply.status_code == 422
        assert reply.json()["message"] == message
    sheet = ScoreSheet.objects.get(assignment__rater__username="rater1")
    assert sheet.version == 0 and not SheetEvent.objects.filter(sheet=sheet, kind="change").exists()


@pytest.mark.django_db
def test_sheet_save_of_a_malformed_request_does_not_open_the_sheet(client, demo):
    response = Response.objects.get(research_id="A05_FS10")
    client.login(username="rater1", password="demo-pass-2026")
    reply = client.post(
        f"/scoring/{code_for('rater1', response)}/save/", data=b"[", content_type="application/json"
    )
    assert reply.status_code == 422
    assert not ScoreSheet.objects.filter(assignment__rater__username="rater1").exists()


@pytest.mark.django_db
def test_sheet_save_with_a_stale_version_is_a_conflict_and_saves_nothing(client, sheet_setup):
    assert save(client, sheet_setup.blind_code, [["dims.s2.purpose", 3]], 0, "first").status_code == 200
    reply = save(client, sheet_setup.blind_code, [["dims.s2.purpose", 1]], 0, "stale")
    assert reply.status_code == 409
    assert reply.json()["error"] == "conflict" and reply.json()["version"] == 1
    sheet = ScoreSheet.objects.get(assignment__rater__username="rater1")
    assert sheet.version == 1
    assert _stored(sheet).dimensions["s2.purpose"] == 3


@pytest.mark.django_db
def test_sheet_save_resent_batch_is_applied_once(client, sheet_setup):
    first = save(client, sheet_setup.blind_code, [["dims.s2.purpose", 3]], 0, "same-batch")
    again = save(client, sheet_setup.blind_code, [["dims.s2.purpose", 3]], 0, "same-batch")
    assert first.status_code == again.status_code == 200
    assert again.json()["replayed"] is True
    assert again.json()["version"] == first.json()["version"] == 1
    sheet = ScoreSheet.objects.get(assignment__rater__username="rater1")
    assert SheetEvent.objects.filter(sheet=sheet, kind="change").count() == 1


@pytest.mark.django_db
def test_sheet_save_reaches_only_the_raters_own_assignment(client, demo):
    response = Response.objects.get(research_id="A05_FS10")
    outsider = rater("outsider", "H09")
    client.force_login(outsider)
    theirs = code_for("rater1", response)  # another rater's code of the same response
    for code in (theirs, response.blind_code):
        assert save(client, code, [["dims.s2.purpose", 3]], 0).status_code == 404
        assert client.get(f"/scoring/{code}/").status_code == 404
    assert client.get("/scoring/NOSUCHCODE/").status_code == 404
    # an archived assignment is gone from the rater too
    assignment = assign(outsider, response)
    assert client.get(f"/scoring/{assignment.blind_code}/").status_code == 200
    assert client.get(f"/scoring/{theirs}/").status_code == 404  # still not the other rater's
    from scoring.services.assignments import assignment_archive

    assignment_archive(assignment=assignment, actor=None, reason="test")
    assert client.get(f"/scoring/{assignment.blind_code}/").status_code == 404
    assert not ScoreSheet.objects.filter(
        assignment__rater=outsider, assignment__archived_at__isnull=True
    ).exists()


@pytest.mark.django_db
def test_sheet_save_after_submit_is_locked(client, sheet_setup, data_a):
    changes = [list(c) for c in data_a_changes(data_a[0][3], load_rubric())]
    changes += [[f"texts.{k}", "text"] for k in ("condition_phrase", "stem", "kvp", "purpose")]
    version = save(client, sheet_setup.blind_code, changes, 0).json()["version"]
    submit = client.post(
        f"/scoring/{sheet_setup.blind_code}/submit/",
        data=json.dumps({"sheet": own_sheet_id(client, sheet_setup.blind_code), "expected_version": version}),
        content_type="application/json",
    )
    assert submit.status_code == 200 and submit.json()["status"] == "submitted"
    reply = save(client, sheet_setup.blind_code, [["dims.s2.purpose", 1]], version + 1, "late")
    assert reply.status_code == 423
    page = client.get(f"/scoring/{sheet_setup.blind_code}/").content.decode()
    assert 'id="submit-sheet"' not in page
    assert 'data-path="dims.s2.purpose" disabled' in page


@pytest.mark.django_db
def test_a_batch_made_on_another_raters_sheet_is_refused_and_saves_nothing(client, demo):
    """A page rater1 left open sends its batch after rater2 logged in on the same browser:
    rater1's code is not rater2's (404, as for any code not theirs); and a batch naming
    rater1's sheet sent to rater2's own code is refused too. Nothing is written."""
    response = Response.objects.get(research_id="A05_FS10")
    code, theirs = code_for("rater1", response), code_for("rater2", response)
    client.login(username="rater1", password="demo-pass-2026")
    rater1_sheet = own_sheet_id(client, code)
    client.logout()
    client.login(username="rater2", password="demo-pass-2026")
    body = {"sheet": rater1_sheet, "batch_id": "x", "expected_version": 0, "changes": [["comments.1", "r1"]]}
    reply = client.post(f"/scoring/{code}/save/", data=json.dumps(body), content_type="application/json")
    assert reply.status_code == 404
    submit = client.post(
        f"/scoring/{code}/submit/",
        data=json.dumps({"sheet": rater1_sheet, "expected_version": 0}),
        content_type="application/json",
    )
    assert submit.status_code == 404
    reply = client.post(f"/scoring/{theirs}/save/", data=json.dumps(body), content_type="application/json")
    assert reply.status_code == 409 and reply.json()["error"] == "other_sheet"
    submit = client.post(
        f"/scoring/{theirs}/submit/",
        data=json.dumps({"sheet": rater1_sheet, "expected_version": 0}),
        content_type="application/json",
    )
    assert submit.status_code == 409 and submit.json()["error"] == "other_sheet"
    for sheet in ScoreSheet.objects.all():
        assert sheet.version == 0 and not sheet.comments and sheet.status == "draft"
    assert not SheetEvent.objects.filter(kind="change").exists()


@pytest.mark.django_db
def test_the_one_statement_save_of_an_opened_sheet_keeps_every_refusal(client, demo):
    """A save to an opened sheet finds and locks it by rater and blind code in one statement
    (issue 14). It still refuses a batch made on another sheet, and an archived assignment's
    opened sheet is out of reach (404); neither writes anything."""
    response = Response.objects.get(research_id="A05_FS10")
    client.login(username="rater1", password="demo-pass-2026")
    rater1_sheet = own_sheet_id(client, code_for("rater1", response))
    client.logout()
    client.login(username="rater2", password="demo-pass-2026")
    code = code_for("rater2", response)
    rater2_sheet = own_sheet_id(client, code)  # opened: the one-statement path applies
    body = {"sheet": rater1_sheet, "batch_id": "x", "expected_version": 0, "changes": [["comments.1", "r1"]]}
    reply = client.post(f"/scoring/{code}/save/", data=json.dumps(body), content_type="application/json")
    assert reply.status_code == 409 and reply.json()["error"] == "other_sheet"
    assert not SheetEvent.objects.filter(kind="change").exists()
    body["sheet"] = rater2_sheet
    reply = client.post(f"/scoring/{code}/save/", data=json.dumps(body), content_type="application/json")
    assert reply.status_code == 200 and reply.json()["version"] == 1
    from scoring.services.assignments import assignment_archive

    assignment = ScoreSheet.objects.get(pk=rater2_sheet).assignment
    assignment_archive(assignment=assignment, actor=None, reason="test")
    body.update(batch_id="y", expected_version=1, changes=[["comments.1", "after archive"]])
    reply = client.post(f"/scoring/{code}/save/", data=json.dumps(body), content_type="application/json")
    assert reply.status_code == 404
    assert ScoreSheet.all_objects.get(pk=rater2_sheet).comments == {"1": "r1"}
    assert ScoreSheet.objects.get(pk=rater1_sheet).version == 0


@pytest.mark.django_db
@pytest.mark.parametrize("field", ["sheet", "expected_version"])
@pytest.mark.parametrize("value", ["١", "１", "1", True, 1.5])
def test_the_sheet_and_version_are_json_whole_numbers(client, sheet_setup, field, value):
    """Hostile pass 27: "١" (an Arabic-Indic digit) was read as sheet 1 (Django's IntegerField);
    the page sends JSON numbers, and nothing else is one."""
    sheet_id = own_sheet_id(client, sheet_setup.blind_code)
    body = {"sheet": sheet_id, "batch_id": "b1", "expected_version": 0, "changes": [["dims.s2.purpose", 3]]}
    body[field] = value if field == "expected_version" or value != "1" else str(sheet_id)
    for url, sent in (
        ("save", body),
        ("submit", {"sheet": body["sheet"], "expected_version": body["expected_version"]}),
    ):
        reply = client.post(
            f"/scoring/{sheet_setup.blind_code}/{url}/",
            data=json.dumps(sent),
            content_type="application/json",
        )
        assert reply.status_code == 422, (url, reply.content)
        assert [e["path"] for e in reply.json()["errors"]] == [field]
    assert ScoreSheet.objects.get(assignment=sheet_setup).version == 0

"""How many SQL statements a sheet costs (issue 14): a whole sheet is saved in a
handful of statements whatever the number of fields, an autosave of two changes
and a first open stay small. Counted on PostgreSQL inside the test's transaction,
so each count includes the SAVEPOINT/RELEASE pair of the service's atomic block
(BEGIN/COMMIT in production). The request counts are the whole request through
the test client: session, user, roles, lookups, writes."""

import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring.entries import entries_from_changes
from scoring.models import ItemScore, ScoreSheet, SheetEvent
from scoring.selectors import rater_assignment_get, sheet_entries_get
from scoring.services.sheets import sheet_apply_changes, sheet_open
from studies.models import Response
from studies.rubric import load_rubric, sheet_totals
from tests.factories import code_for

# Statements every request of a logged-in rater makes before the view's own work: the user
# with the rater profile (the session and the roles come from the cache).
REQUEST_OVERHEAD = 1
# The aim of issue 14 for a whole-sheet save and a first open, whole request.
REQUEST_MAX = 10
# A save's reads of the sheet's rows: none, the sheet locked carries their copy (entry_rows).
READS = 0
# A save's writes of a draft: the sheet's UPDATE (its entries in its copy of its rows) and the
# one audit event's INSERT; the item and dimension rows are written at submit.
WRITES = 2


def whole_sheet(rubric) -> list[list]:
    """Every field of the form, each set to a non-default value (102 fields)."""
    changes: list[list] = []
    for step in rubric.steps:
        for pos in range(1, step.item_count + 1) if step.has_items else ():
            base = f"items.{step.number}.{pos}"
            if step.kind == "ideas":
                changes.append([f"{base}.classification", rubric.category_keys[pos % 3]])
            changes += [[f"{base}.{spec.key}", spec.max] for spec in step.item_scores]
            changes.append([f"{base}.comment", f"comment {step.number}.{pos}"])
        changes += [[f"dims.{d.key}", d.max - 1] for d in step.scored_dimensions]
        changes += [[f"texts.{t.key}", f"{t.key} text"] for t in step.texts]
        changes.append([f"comments.{step.number}", f"step {step.number} comment"])
    return changes


@pytest.fixture
def opened(demo, client):
    response = Response.objects.get(research_id="A05_FS10")
    client.login(username="rater1", password="demo-pass-2026")
    assert client.get(f"/scoring/{code_for('rater1', response)}/").status_code == 200
    return response


def _sheet_data(page) -> dict:
    match = re.search(rb'<script id="sheet-data" type="application/json">(.*?)</script>', page.content, re.S)
    assert match, "the page carries its data"
    return json.loads(match.group(1))


def _page_html(page) -> str:
    """The page without its per-request CSRF token."""
    html = re.sub(r'(csrf[^"]*"[^>]*?value=")[^"]+', r"\1", page.content.decode())
    return re.sub(r'("X-CSRFToken": ")[^"]+', r"\1", html)


def _studies_tables_read(captured) -> list[str]:
    """The statements that read a table of the studies app (the response's steps, the scenario's
    texts, the study): none of them is a write's business."""
    return [q["sql"] for q in captured.captured_queries if '"studies_' in q["sql"]]


def _post_save(client, code, sheet_id, changes, version, batch_id):
    body = {"sheet": sheet_id, "batch_id": batch_id, "expected_version": version, "changes": changes}
    return client.post(f"/scoring/{code}/save/", data=json.dumps(body), content_type="application/json")


@pytest.mark.django_db
def test_a_whole_sheet_is_saved_in_at_most_ten_statements_with_every_value_and_event(
    opened, django_assert_max_num_queries
):
    rubric = load_rubric()
    changes = whole_sheet(rubric)
    assert len(changes) == 102
    sheet = ScoreSheet.objects.get(assignment__response=opened, assignment__rater__username="rater1")
    user = sheet.assignment.rater
    # savepoint, lock (the sheet with its rows' copy), the writes (the sheet's UPDATE and the
    # audit event's INSERT), release
    with django_assert_max_num_queries(3 + READS + WRITES) as captured:
        result = sheet_apply_changes(
            sheet_id=sheet.pk, actor=user, changes=changes, expected_version=0, batch_id="whole"
        )
    inserts = [q["sql"] for q in captured.captured_queries if q["sql"].startswith("INSERT")]
    assert len(inserts) == 1  # the audit event, whatever the number of fields
    expected = entries_from_changes([tuple(c) for c in changes], rubric)
    stored = sheet_entries_get(sheet=ScoreSheet.objects.get(pk=sheet.pk), rubric=rubric)
    assert stored == expected  # every field, read back from the sheet's copy of its rows
    assert result.version == 1  # one version bump for the whole batch
    assert result.totals == sheet_totals(expected, rubric)
    assert ScoreSheet.objects.get(pk=sheet.pk).overall == result.totals.overall
    event = SheetEvent.objects.get(sheet=sheet, kind="change")  # one audit event for the save
    assert len(event.changes) == result.changed == 102 and event.version == 1
    assert [c["path"] for c in event.changes] == [path for path, _value in changes]
    # a re-send of the same batch is not applied twice, and costs no write
    with django_assert_max_num_queries(3 + READS):  # savepoint, lock, release
        again = sheet_apply_changes(
            sheet_id=sheet.pk, actor=user, changes=changes, expected_version=0, batch_id="whole"
        )
    assert again.replayed and again.version == 1
    assert SheetEvent.objects.filter(sheet=sheet, kind="change").count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("ceiling", [0, 5], ids=["no-ceiling", "ceiling-on"])
def test_the_whole_sheet_request_and_a_two_change_autosave_stay_small(
    opened, client, django_assert_max_num_queries, settings, ceiling, fresh_rate_counts
):
    code = code_for("rater1", opened)
    sheet = ScoreSheet.objects.get(assignment__response=opened, assignment__rater__username="rater1")
    # the ceiling on saves per second counts in the cache (Redis), never in SQL
    settings.SHEET_SAVES_PER_SECOND = ceiling
    # the rater's assignment with its sheet found by blind code, the sheet locked, then as above
    with django_assert_max_num_queries(REQUEST_OVERHEAD + 4 + READS + WRITES) as captured:
        reply = _post_save(client, code, sheet.pk, whole_sheet(load_rubric()), 0, "whole")
    assert reply.status_code == 200, reply.content
    assert reply.json()["changed"] == 102
    # none of the texts the page shows is read by a save (the response's steps, the scenario's)
    assert _studies_tables_read(captured) == []
    # an autosave of two changes: one item row and one dimension (was 14 statements,
    # one UPDATE per change; now one upsert per kind of row)
    two = [["dims.s2.focus", 3], ["items.1.2.comment", "shorter"]]
    with django_assert_max_num_queries(REQUEST_OVERHEAD + 4 + READS + WRITES):
        reply = _post_save(client, code, sheet.pk, two, 1, "two")
    assert reply.status_code == 200, reply.content
    draft = ScoreSheet.objects.get(pk=sheet.pk)
    assert sheet_entries_get(sheet=draft).ideas[1][1].comment == "shorter"
    assert not ItemScore.objects.filter(sheet=sheet).exists()  # a draft's rows wait for its submit
    assert ScoreSheet.objects.get(pk=sheet.pk).version == 2
    # the same batch sent again after a lost reply: answered, not applied twice
    with django_assert_max_num_queries(REQUEST_OVERHEAD + 4 + READS):
        reply = _post_save(client, code, sheet.pk, two, 1, "two")
    assert reply.status_code == 200 and reply.json()["replayed"] and reply.json()["version"] == 2
    (event,) = SheetEvent.objects.filter(sheet=sheet, kind="change", version=2)
    assert [c["path"] for c in event.changes] == ["dims.s2.focus", "items.1.2.comment"]


@pytest.mark.django_db
def test_opening_a_sheet_for_the_first_time_is_a_few_statements(demo, client, django_assert_max_num_queries):
    response = Response.objects.get(research_id="A05_FS10")
    rater2 = (
        ScoreSheet._meta.get_field("assignment")
        .related_model.objects.get(response=response, rater__username="rater2")
        .rater
    )
    assignment = rater_assignment_get(user=rater2, blind_code=code_for("rater2", response))
    with django_assert_max_num_queries(5):  # count of items, two INSERTs, savepoints
        sheet = sheet_open(assignment=assignment, actor=rater2)
    fetched = rater_assignment_get(user=rater2, blind_code=code_for("rater2", response))  # with its sheet
    with django_assert_max_num_queries(0):
        assert sheet_open(assignment=fetched) == sheet
    assert sheet.version == 0 and sheet.overall == 0
    assert SheetEvent.objects.filter(sheet=sheet, kind="create").count() == 1
    assert sheet_open(assignment=assignment, actor=rater2) == sheet  # a second open creates nothing
    # the first open of the page by the other rater, whole request (was 24 statements):
    # the assignment, the response's items (their count is taken from them), savepoint,
    # two INSERTs (the sheet, its event), release; the page shows the entries it created
    # without reading them back
    client.login(username="rater1", password="demo-pass-2026")
    code = code_for("rater1", response)
    with django_assert_max_num_queries(REQUEST_MAX):
        page = client.get(f"/scoring/{code}/")
    assert page.status_code == 200
    assert ScoreSheet.objects.filter(assignment__response=response).count() == 2
    # opened again: the assignment with its sheet (and its rows' copy), the response's items
    with django_assert_max_num_queries(REQUEST_OVERHEAD + 2 + READS):
        again = client.get(f"/scoring/{code}/")
    assert again.status_code == 200
    # what the first open showed from memory is what was stored: the same page
    assert _page_html(again) == _page_html(page)
    assert _sheet_data(page)["version"] == 0


@pytest.mark.django_db
def test_the_time_report_and_the_submit_read_none_of_the_pages_texts(opened, client):
    """Like the save, the other two writes of the page look the rater's assignment up without the
    response's steps, the scenario's texts or the study (``rater_assignment_for_write``)."""
    code = code_for("rater1", opened)
    sheet = ScoreSheet.objects.get(assignment__response=opened, assignment__rater__username="rater1")
    writes = {
        "time": (f"/scoring/{code}/time/", {"sheet": sheet.pk, "seconds": 30}),
        "submit": (f"/scoring/{code}/submit/", {"sheet": sheet.pk, "expected_version": 1}),
    }
    assert _post_save(client, code, sheet.pk, whole_sheet(load_rubric()), 0, "whole").status_code == 200
    for name, (url, body) in writes.items():
        with CaptureQueriesContext(connection) as captured:
            reply = client.post(url, data=json.dumps(body), content_type="application/json")
        assert reply.status_code == 200 and reply.json()["ok"], (name, reply.content)
        assert _studies_tables_read(captured) == [], name
    assert ScoreSheet.objects.get(pk=sheet.pk).status == "submitted"

"""Active scoring time reported by the page and stored with the sheet (and in the raw
research table); the queue's "left" count, time estimate from the rater's own pace and
the "Next response" link after a submit."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from research.selectors.results import RAW_HEADER, raw_score_rows_iter
from scoring.models import Assignment, ScoreSheet
from studies.models import ModelEndpoint, Response
from tests.factories import code_for, make_response, own_sheet_id, reference_changes, sheet_submitted

pytestmark = pytest.mark.django_db


def _post(client, url, payload):
    return client.post(url, data=json.dumps(payload), content_type="application/json")


def _last_report_ago(sheet_id: int, seconds: int) -> None:
    """As if the sheet had been opened, and last reported, ``seconds`` ago."""
    then = timezone.now() - timedelta(seconds=seconds)
    ScoreSheet.objects.filter(pk=sheet_id).update(created_at=then, active_reported_at=None)


def _beside(first: Response, *, model_number: str) -> Response:
    """Another model's response to the scenario and condition of ``first``."""
    return make_response(
        study=first.study,
        scenario=first.scenario,
        model=ModelEndpoint.objects.get(model_number=model_number),
        condition=first.condition,
    )


def test_the_page_reports_active_time_to_its_own_draft_only(client, demo):
    code = code_for("rater1", Response.objects.get(research_id="A05_FS10"))
    client.login(username="rater1", password="demo-pass-2026")
    sheet_id = own_sheet_id(client, code)
    url = f"/scoring/{code}/time/"
    _last_report_ago(sheet_id, 120)
    assert _post(client, url, {"sheet": sheet_id, "seconds": 61}).json() == {"ok": True}
    _last_report_ago(sheet_id, 60)
    assert _post(client, url, {"sheet": sheet_id, "seconds": 30}).status_code == 200
    assert ScoreSheet.objects.get(pk=sheet_id).active_seconds == 91
    for bad in (0, -5, 901, "x", None):  # out of range or not a number: refused, nothing added
        assert _post(client, url, {"sheet": sheet_id, "seconds": bad}).status_code == 422
    assert _post(client, url, {"sheet": sheet_id + 999, "seconds": 5}).status_code == 409
    assert client.post(url, data="{not json", content_type="application/json").status_code == 422
    assert ScoreSheet.objects.get(pk=sheet_id).active_seconds == 91
    client.logout()
    client.login(username="calibrator", password="demo-pass-2026")  # not this rater's response
    assert _post(client, url, {"sheet": sheet_id, "seconds": 5}).status_code == 404
    assert ScoreSheet.objects.get(pk=sheet_id).active_seconds == 91


def test_active_time_reports_add_at_most_the_wall_clock_time_since_the_last_report(client, demo):
    """The exploit: 100 reports of 900 s within a second on a sheet opened 5 minutes
    before added 90,000 s; now they add at most the time that has passed."""
    code = code_for("rater1", Response.objects.get(research_id="A05_FS10"))
    client.login(username="rater1", password="demo-pass-2026")
    sheet_id = own_sheet_id(client, code)
    _last_report_ago(sheet_id, 300)
    url = f"/scoring/{code}/time/"
    started = timezone.now()
    for _ in range(100):
        assert _post(client, url, {"sheet": sheet_id, "seconds": 900}).status_code == 200
    elapsed = (timezone.now() - started).total_seconds()
    sheet = ScoreSheet.objects.get(pk=sheet_id)
    # the first report may claim the 300 s since the sheet was opened, the others only
    # the moments between them
    assert 300 <= sheet.active_seconds <= 300 + elapsed + 1
    assert sheet.active_reported_at is not None and sheet.active_reported_at >= started
    # a minute later, a report of 60 s (what the page sends) counts in full again
    _last_report_ago(sheet_id, 61)
    before = ScoreSheet.objects.get(pk=sheet_id).active_seconds
    assert _post(client, url, {"sheet": sheet_id, "seconds": 60}).status_code == 200
    assert ScoreSheet.objects.get(pk=sheet_id).active_seconds == before + 60


def test_queue_estimate_from_own_pace_and_next_response_after_submit(client, demo, django_user_model):
    rater1 = django_user_model.objects.get(username="rater1")
    first = Response.objects.get(research_id="A05_FS10")
    second = _beside(first, model_number="01")
    third = _beside(first, model_number="02")
    for response in (second, third):
        Assignment.objects.get_or_create(rater=rater1, response=response)
    client.login(username="rater1", password="demo-pass-2026")
    queue = client.get("/scoring/").content.decode()
    assert "3 responses left" in queue and "at your pace" not in queue  # no pace yet

    sheet = sheet_submitted(rater1, first, reference_changes(3))
    ScoreSheet.objects.filter(pk=sheet.pk).update(active_seconds=600)  # 10 minutes for the first
    queue = client.get("/scoring/").content.decode()
    assert "2 responses left" in queue and "about 20 minutes at your pace" in queue
    mine = code_for(rater1, first)
    page = client.get(f"/scoring/{mine}/").content.decode()  # after the submit
    assert 'id="next-response"' in page
    codes = [a.blind_code for a in Assignment.objects.filter(rater=rater1).order_by("order_key", "id")]
    open_codes = [c for c in codes if c != mine]
    after = codes[codes.index(mine) + 1 :] + codes[: codes.index(mine)]
    expected = next(c for c in after if c in open_codes)
    assert f'id="next-response" href="/scoring/{expected}/"' in page

    # the research output carries the active time (minutes) of each submitted sheet
    rows = list(raw_score_rows_iter(study=first.study))
    column = RAW_HEADER.index("active_minutes")
    assert rows and {r[column] for r in rows} == {10.0}


def test_nothing_left_says_so(client, demo, django_user_model):
    rater1 = django_user_model.objects.get(username="rater1")
    response = Response.objects.get(research_id="A05_FS10")
    sheet_submitted(rater1, response, reference_changes(3))
    client.login(username="rater1", password="demo-pass-2026")
    page = client.get(f"/scoring/{code_for('rater1', response)}/").content.decode()
    assert "Nothing left in your queue" in page and 'id="next-response"' not in page


def test_open_drafts_share_one_clock(client, demo):
    """Hostile pass 14: reports on every open draft each added up to the time since that
    sheet's own last report; a rater's reports together now add at most the time passed."""
    first = Response.objects.get(research_id="A05_FS10")
    second = _beside(first, model_number="01")
    Assignment.objects.get_or_create(
        rater=first.assignments.get(rater__username="rater1").rater, response=second
    )
    rater1_codes = [code_for("rater1", r) for r in (first, second)]
    client.login(username="rater1", password="demo-pass-2026")
    ids = [own_sheet_id(client, code) for code in rater1_codes]
    for sheet_id in ids:
        _last_report_ago(sheet_id, 300)
    ScoreSheet.objects.filter(assignment__rater__username="rater1").exclude(pk__in=ids).update(
        active_reported_at=None
    )
    started = timezone.now()
    for code, sheet_id in zip(rater1_codes, ids, strict=True):
        assert _post(client, f"/scoring/{code}/time/", {"sheet": sheet_id, "seconds": 300}).status_code == 200
    elapsed = (timezone.now() - started).total_seconds()
    added = sum(ScoreSheet.objects.get(pk=i).active_seconds for i in ids)
    # the first report claims the five minutes; the second only the moment since the first
    assert 300 <= added <= 300 + elapsed + 1

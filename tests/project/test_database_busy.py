"""A database another process holds (a worker's write on SQLite, a row lock or a restart on
PostgreSQL) is a wait, not an error: the request answers 503 with Retry-After, changes
nothing, and the same request sent again succeeds (issue 37, finding 7). Runs on the
database of the suite: SQLite's file lock there, a PostgreSQL row lock with a lock timeout
here."""

import json

import pytest
from django.db import connection
from django.test import Client

from scoring.models import RaterProfile, ScoreSheet
from studies.models import Response
from tests.brokers import free_port
from tests.db_holds import database_held
from tests.factories import code_for, own_sheet_id

pytestmark = [pytest.mark.fault, pytest.mark.django_db(transaction=True)]
CHANGES = [["texts.stem", "a stem"], ["texts.kvp", "values"]]


def _save(client, code, sheet, version):
    body = {"sheet": sheet, "batch_id": f"b{version}", "expected_version": version, "changes": CHANGES}
    return client.post(f"/scoring/{code}/save/", data=json.dumps(body), content_type="application/json")


def test_a_save_meeting_a_held_database_is_503_then_goes_through(demo):
    client = Client(raise_request_exception=False)
    client.login(username="rater1", password="demo-pass-2026")
    code = code_for("rater1", Response.objects.get(research_id="A05_FS10"))
    assert client.get(f"/scoring/{code}/").status_code == 200
    sheet = own_sheet_id(client, code)

    with database_held("scoring_scoresheet", sheet):
        refused = _save(client, code, sheet, 0)
    assert refused.status_code == 503, refused.content[:300]
    assert refused["Retry-After"] == "5"
    assert "busy" in refused.json()["detail"] and "nothing was changed" in refused.json()["detail"]
    saved = ScoreSheet.objects.get(pk=sheet)
    assert saved.version == 0 and saved.stem == ""

    again = _save(client, code, sheet, 0)  # the page sends the same batch again
    assert again.status_code == 200 and again.json()["version"] == 1
    saved.refresh_from_db()
    assert saved.stem == "a stem" and saved.kvp == "values"


def test_a_page_meeting_a_held_database_says_busy_not_server_error(demo):
    client = Client(raise_request_exception=False)
    client.login(username="rater1", password="demo-pass-2026")
    profile = RaterProfile.objects.get(user__username="rater1")
    language = profile.language
    chosen = "en" if language == "zh-hans" else "zh-hans"
    with database_held("scoring_raterprofile", profile.pk):
        refused = client.post("/i18n/setlang/", {"language": chosen, "next": "/scoring/"})
    assert refused.status_code == 503 and refused["Retry-After"] == "5"
    page = refused.content.decode()
    assert 'data-status="503"' in page and "The server is busy for a moment" in page
    profile.refresh_from_db()
    assert profile.language == language

    again = client.post("/i18n/setlang/", {"language": chosen, "next": "/scoring/"})
    assert again.status_code == 302
    profile.refresh_from_db()
    assert profile.language == chosen


@pytest.mark.postgres
def test_a_database_restarting_answers_503_before_any_view(demo):
    """PostgreSQL away (restarting): the first query is the session's user, in a middleware
    before any view; the site's 500 handler answers it as busy too."""
    client = Client(raise_request_exception=False)
    client.login(username="rater1", password="demo-pass-2026")
    saved_port = connection.settings_dict["PORT"]
    connection.close()
    connection.settings_dict["PORT"] = str(free_port())  # nothing listens: connection refused
    try:
        page = client.get("/scoring/")
        api = client.get("/api/v1/studies")
    finally:
        connection.close()
        connection.settings_dict["PORT"] = saved_port
    assert page.status_code == 503 and b'data-status="503"' in page.content
    assert api.status_code == 503 and "busy" in api.json()["detail"]
    assert client.get("/scoring/").status_code == 200  # back: as before

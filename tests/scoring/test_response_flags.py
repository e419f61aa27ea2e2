"""A rater flags a broken response with a note; admins see the flags and withdraw the
response from the study (status withdrawn, assignments archived, nothing deleted) or
dismiss the flag. The other rater sees nothing of it."""

import pytest

from scoring.models import Assignment, ResponseFlag
from studies.models import AuditEvent, Response
from tests.factories import code_for

pytestmark = pytest.mark.django_db
NOTE = "Step 4 stops mid-sentence; the criteria are cut off"


def _login(client, username):
    assert client.login(username=username, password="demo-pass-2026")


def test_rater_flags_admin_dismisses_or_withdraws(client, demo):
    response = Response.objects.get(research_id="A05_FS10")
    code = code_for("rater1", response)
    _login(client, "rater1")
    assert client.get(f"/scoring/{code}/").status_code == 200
    client.post(f"/scoring/{code}/flag/", {"note": "   "})  # empty: refused
    assert not ResponseFlag.objects.exists()
    page = client.post(f"/scoring/{code}/flag/", {"note": NOTE}, follow=True).content.decode()
    assert "the response is reported" in page and NOTE in page and "You reported it on" in page
    flag = ResponseFlag.objects.get()
    assert flag.rater.username == "rater1" and flag.response == response and flag.resolution == ""
    [flagged] = AuditEvent.objects.filter(action="response.flag")
    assert flagged.actor.username == "rater1" and flagged.changes == {"note": NOTE}
    assert flagged.study == response.study
    assert client.get("/manage/flags/").status_code == 403
    client.logout()

    _login(client, "rater2")  # the other rater of the pair sees nothing of it
    page = client.get(f"/scoring/{code}/").content.decode()
    assert NOTE not in page and "You reported it" not in page
    client.logout()

    _login(client, "admin")
    assert "Responses flagged as broken" in client.get("/manage/").content.decode()
    listing = client.get("/manage/flags/").content.decode()
    assert "A05_FS10" in listing and NOTE in listing and "rater1" in listing
    client.post("/manage/flags/", {"flag": flag.pk, "action": "dismiss", "note": ""})
    flag.refresh_from_db()
    assert flag.resolution == "dismissed" and flag.resolved_by.username == "admin"
    [dismissed] = AuditEvent.objects.filter(action="response.flag_dismiss")
    assert dismissed.actor.username == "admin" and dismissed.target == flagged.target
    again = ResponseFlag.objects.create(response=response, rater=flag.rater, note="still broken")
    page = client.post("/manage/flags/", {"flag": again.pk, "action": "withdraw", "note": ""}, follow=True)
    assert "Give a reason" in page.content.decode()
    response.refresh_from_db()
    assert response.status != "withdrawn"
    client.post("/manage/flags/", {"flag": again.pk, "action": "withdraw", "note": "generation failed"})
    again.refresh_from_db()
    response.refresh_from_db()
    assert again.resolution == "withdrawn" and response.status == "withdrawn"
    assert not Assignment.objects.filter(response=response, archived_at__isnull=True).exists()
    assert Assignment.objects.filter(response=response).count() == 2  # archived, never deleted
    assert "generation failed" in Assignment.objects.filter(response=response).first().archived_reason
    # audited as a withdrawal from the held responses page is (hostile pass 13)
    event = AuditEvent.objects.get(action="response.withdrawn", target=f"studies.response:{response.pk}")
    assert event.reason == "generation failed" and event.actor.username == "admin"
    client.logout()

    _login(client, "rater1")  # gone from the queue
    assert code not in client.get("/scoring/").content.decode()
    assert client.get(f"/scoring/{code}/").status_code == 404


def test_the_same_report_sent_twice_is_one_flag(client, demo):
    """Hostile pass 27: a report posted twice (a double click, a resend) opened two flags; another
    note, or the same note after the first was handled, is a new report."""
    response = Response.objects.get(research_id="A05_FS10")
    code = code_for("rater1", response)
    _login(client, "rater1")
    for _ in range(2):
        client.post(f"/scoring/{code}/flag/", {"note": NOTE})
    assert ResponseFlag.objects.count() == 1
    assert AuditEvent.objects.filter(action="response.flag").count() == 1
    client.post(f"/scoring/{code}/flag/", {"note": "Step 6 is missing too"})
    assert ResponseFlag.objects.count() == 2
    ResponseFlag.objects.filter(note=NOTE).update(resolution="dismissed")  # handled meanwhile
    client.post(f"/scoring/{code}/flag/", {"note": NOTE})
    assert ResponseFlag.objects.count() == 3

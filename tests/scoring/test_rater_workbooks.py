"""Raters download and upload their own workbooks from their queue area; nothing reveals the study design."""

import pytest
from django.contrib.auth import get_user_model

from scoring.models import ScoreSheet
from scoring.score_files import data_a_changes
from studies.models import Response
from studies.rubric import load_rubric
from tests.factories import code_for, scoring_group_assigned
from tests.workbook_fill import STEP2_TEXTS, fill_workbook, workbook_download_href

pytestmark = pytest.mark.django_db


@pytest.fixture
def group(demo):
    users = get_user_model().objects
    response = Response.objects.get(research_id="A05_FS10")
    return scoring_group_assigned(
        responses=[response], rater_a=users.get(username="rater1"), rater_b=users.get(username="rater2")
    )


def _login(client, username):
    client.login(username=username, password="demo-pass-2026")


def test_rater_downloads_fills_and_uploads_their_workbook(client, group, data_a):
    _login(client, "rater1")
    page = client.get("/scoring/workbooks/")
    html = page.content.decode()
    assert "H01_FS10.xlsx" in html
    for secret in ("A05_FS10", "kimi", "TeamLLM"):
        assert secret not in html
    href = next(
        part.split('"')[0]
        for part in html.split('href="')
        if part.startswith("/scoring/workbooks/") and "download" in part
    )
    download = client.get(href)
    assert download.status_code == 200 and "H01_FS10.xlsx" in download["Content-Disposition"]
    code = code_for("rater1", Response.objects.get(research_id="A05_FS10"))
    filled = fill_workbook(
        download.content, {code: data_a_changes(data_a[0][3], load_rubric()) + STEP2_TEXTS}
    )
    from django.core.files.uploadedfile import SimpleUploadedFile

    done = client.post(
        "/scoring/workbooks/", {"file": SimpleUploadedFile("H01_FS10.xlsx", filled)}, follow=True
    )
    assert "Stored and submitted 1 sheet" in done.content.decode()
    sheet = ScoreSheet.objects.get(assignment__rater__username="rater1")
    assert sheet.status == "submitted" and sheet.overall == 116


def test_problems_are_listed_and_other_raters_workbooks_refused(client, group):
    from django.core.files.uploadedfile import SimpleUploadedFile

    _login(client, "rater1")
    html = client.get("/scoring/workbooks/").content.decode()
    href = next(
        part.split('"')[0]
        for part in html.split('href="')
        if part.startswith("/scoring/workbooks/") and "download" in part
    )
    blank = client.get(href).content
    page = client.post("/scoring/workbooks/", {"file": SimpleUploadedFile("H01_FS10.xlsx", blank)})
    assert "Nothing was stored" in page.content.decode() and "needs a value" in page.content.decode()
    client.logout()
    _login(client, "rater2")
    page = client.post("/scoring/workbooks/", {"file": SimpleUploadedFile("x.xlsx", blank)})
    assert "not exported for your account" in page.content.decode()
    assert client.get("/manage/workbooks/").status_code == 403
    assert not ScoreSheet.objects.exists()


def test_upload_size_limit(client, group, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    _login(client, "rater1")
    page = client.post("/scoring/workbooks/", {"file": SimpleUploadedFile("big.xlsx", b"x" * 500)})
    assert "too large" in page.content.decode()


def test_admin_lists_and_downloads_any_raters_workbook(client, group):
    _login(client, "admin")
    html = client.get("/manage/workbooks/").content.decode()
    assert "H01_FS10.xlsx" in html and "H02_FS10.xlsx" in html
    rater2 = get_user_model().objects.get(username="rater2")
    response = client.get(f"/manage/workbooks/{rater2.pk}/{group.pk}/download")
    assert response.status_code == 200 and "H02_FS10.xlsx" in response["Content-Disposition"]


def test_one_upload_lists_every_problem_including_empty_required_cells(client, group, data_a):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from scoring.workbooks.layout import sheet_layout
    from tests.workbook_fill import fill_sheet, open_workbook, save_workbook

    _login(client, "rater1")
    html = client.get("/scoring/workbooks/").content.decode()
    href = next(
        part.split('"')[0]
        for part in html.split('href="')
        if part.startswith("/scoring/workbooks/") and "download" in part
    )
    wb = open_workbook(client.get(href).content)
    code = code_for("rater1", Response.objects.get(research_id="A05_FS10"))
    fill_sheet(wb[code], data_a_changes(data_a[0][3], load_rubric()) + STEP2_TEXTS)
    inputs = sheet_layout(load_rubric().version, "en").input_by_path
    wb[code][inputs["items.1.1.elaboration"].coord] = 7  # out of range
    wb[code][inputs["dims.s6.impact"].coord] = None  # required, left empty
    page = client.post(
        "/scoring/workbooks/", {"file": SimpleUploadedFile("H01_FS10.xlsx", save_workbook(wb))}
    )
    html = page.content.decode()
    assert "Nothing was stored" in html
    assert inputs["items.1.1.elaboration"].coord in html and "from 0 to 2" in html
    assert inputs["dims.s6.impact"].coord in html and "needs a value" in html
    assert not ScoreSheet.objects.filter(status="submitted").exists()


def test_the_two_raters_of_a_pair_get_different_download_keys(client, group):
    """A key of the group alone would be the same on both raters' pages: comparing URLs
    would tell two raters they score the same responses."""
    _login(client, "rater1")
    first = workbook_download_href(client)
    client.logout()
    _login(client, "rater2")
    second = workbook_download_href(client)
    assert first != second
    assert client.get(second).status_code == 200
    assert client.get(first).status_code == 404


def test_one_workbook_of_an_account_is_read_at_a_time(client, group, data_a):
    """Hostile pass 16 (F1): eight uploads at once from one rater held every web thread for 20 s.
    While one of an account's workbooks is read, another answers 429 at once, unread; once it is
    done, the next is read."""
    from django.core.cache import cache
    from django.core.files.uploadedfile import SimpleUploadedFile

    _login(client, "rater1")
    rater1 = get_user_model().objects.get(username="rater1")
    code = code_for("rater1", Response.objects.get(research_id="A05_FS10"))
    href = workbook_download_href(client)
    filled = fill_workbook(
        client.get(href).content, {code: data_a_changes(data_a[0][3], load_rubric()) + STEP2_TEXTS}
    )
    slot = f"workbook-upload:{rater1.pk}"
    cache.add(slot, 1, timeout=60)  # one of rater1's uploads is being read
    try:
        busy = client.post("/scoring/workbooks/", {"file": SimpleUploadedFile("H01_FS10.xlsx", filled)})
        assert busy.status_code == 429
        assert "Another workbook of yours is still being read" in busy.content.decode()
        assert not ScoreSheet.objects.filter(assignment__rater=rater1, status="submitted").exists()
        _login(client, "rater2")  # another account is not held up by rater1's
        assert (
            client.post("/scoring/workbooks/", {"file": SimpleUploadedFile("x.xlsx", b"no")}).status_code
            == 400
        )
    finally:
        cache.delete(slot)
    _login(client, "rater1")
    done = client.post(
        "/scoring/workbooks/", {"file": SimpleUploadedFile("H01_FS10.xlsx", filled)}, follow=True
    )
    assert "Stored and submitted 1 sheet" in done.content.decode()
    assert cache.get(slot) is None  # given back after the read

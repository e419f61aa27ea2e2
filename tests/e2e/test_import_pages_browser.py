"""In Chromium, on an empty database: an admin imports the study's released responses
and then its scores from the study page, first with a mistake the page names, and
sees the counts the server stored."""

from __future__ import annotations

import json

import pytest

from scoring.models import ScoreSheet
from studies.models import Response, Study
from tests.browser import login, shot
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_admin_imports_responses_then_scores_from_the_study_page(live_server, browser, data_a, tmp_path):
    study = Study.objects.create(name="Replication")
    UserFactory(username="labadmin", password="Admin-pass-2026", role="Admin")
    base = live_server.url
    scores = tmp_path / "data_A.json"
    scores.write_text(json.dumps(data_a, ensure_ascii=False), encoding="utf-8")

    page = browser.new_page()
    login(page, base, "labadmin", "Admin-pass-2026")
    page.goto(f"{base}/manage/studies/{study.pk}/")
    with page.expect_navigation():
        page.click("#study-data >> text=Import responses")
    page.set_input_files("#id_file", str(scores))
    with page.expect_navigation():
        page.click("button[type=submit].primary")  # create-missing left unticked: refused
    assert "Nothing was imported" in page.inner_text("#import-problems")
    assert not Response.objects.exists()
    page.set_input_files("#id_file", str(scores))
    page.check("#id_create_missing")
    with page.expect_navigation():
        page.click("button[type=submit].primary")
    stored = Response.objects.filter(study=study).count()
    assert stored == len(data_a)
    assert f"{stored} response" in page.inner_text("#study-data")

    with page.expect_navigation():
        page.click("#study-data >> text=Import scores")
    page.set_input_files("#id_file", str(scores))
    page.fill("#id_raters", "H01 is alice")
    with page.expect_navigation():
        page.click("button[type=submit].primary")
    assert "expected CODE=USERNAME" in page.inner_text("section.form-card form")
    assert not ScoreSheet.objects.exists()
    page.set_input_files("#id_file", str(scores))
    page.fill("#id_raters", "")
    with page.expect_navigation():
        page.click("button[type=submit].primary")
    assert page.url.endswith(f"/manage/studies/{study.pk}/")
    sheets = ScoreSheet.objects.filter(assignment__response__study=study, status="submitted")
    assert sheets.count() == 2 * len(data_a)
    assert f"{sheets.count()} sheet" in page.inner_text(".messages")
    shot(page, "study-after-imports", full_page=True)

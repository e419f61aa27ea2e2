"""In Chromium: an admin brings a lab's scored sheets in the study's own Excel layout (a zip of
H01_FS10.xlsx workbooks) into a study from its score import page, first a broken workbook the page
names; the rater then sees the imported sheet read only, with the totals the server computed, and
axe finds nothing serious on it in two looks (issue 42)."""

from __future__ import annotations

import shutil

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from scoring.models import ScoreSheet, SheetLevel
from studies.models import Response
from studies.services.studies import EMPTY, study_create
from tests.browser import PASSWORD, login, shot
from tests.conftest import REFERENCE
from tests.e2e.test_accessibility_staff_browser import pages_problems
from tests.factories import ScenarioFactory, UserFactory, make_response

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_admin_imports_a_zip_of_scored_sheets_and_the_rater_sees_them(
    live_server, browser, tmp_path, settings
):
    settings.DEMO_MODE = True  # the shared accessibility helper logs in with the demo password
    call_command(
        "import_scores", str(REFERENCE / "data_A.json"), "--study", "Replication", "--create-missing"
    )
    call_command("export_results", "--study", "Replication", "--release-workbooks", str(tmp_path / "out"))
    archive = shutil.make_archive(str(tmp_path / "lab-sheets"), "zip", tmp_path / "out")
    study = study_create(name="Lab study", template=EMPTY)
    scenario = ScenarioFactory(study=study, code="FS10")
    for response in Response.objects.filter(study__name="Replication"):
        make_response(
            study=study, scenario=scenario, model=response.model, condition=response.condition,
            research_id=response.research_id,
        )  # fmt: skip
    UserFactory(username="labadmin", password=PASSWORD, role="Admin")
    broken = tmp_path / "H01_FS10.xlsx"
    broken.write_bytes(b"PK not really a workbook")
    base = live_server.url

    page = browser.new_page()
    login(page, base, "labadmin")
    page.goto(f"{base}/manage/studies/{study.pk}/scores/import/")
    page.set_input_files("#id_file", str(broken))
    with page.expect_navigation():
        page.click("button[type=submit].primary")
    assert "H01_FS10.xlsx:" in page.inner_text("#import-problems")
    assert not ScoreSheet.objects.filter(assignment__response__study=study).exists()
    page.set_input_files("#id_file", archive)
    with page.expect_navigation():
        page.click("button[type=submit].primary")
    sheets = ScoreSheet.objects.filter(assignment__response__study=study, level=SheetLevel.DIMENSIONS)
    assert sheets.count() == 2
    assert "2 sheet(s) imported" in page.inner_text(".messages")

    sheet = sheets.select_related("assignment__rater").first()
    rater = sheet.assignment.rater
    rater.set_password(PASSWORD)  # the import made the account without a usable password
    rater.save()
    rater_page = browser.new_page()
    login(rater_page, base, rater.get_username())
    rater_page.goto(f"{base}/scoring/{sheet.assignment.blind_code}/")
    caption = rater_page.inner_text("table.dimension-sheet caption")
    assert caption == f"Overall {sheet.totals['overall']} of 186"
    rows = rater_page.locator("table.dimension-sheet tr.step-total td strong").all_inner_texts()
    assert [int(t) for t in rows] == [sheet.totals["steps"][str(n)] for n in range(1, 7)]
    assert rater_page.locator("main input, main select, main textarea").count() == 0  # nothing to enter
    assert sheet.assignment.response.research_id not in rater_page.content()
    shot(rater_page, "imported-dimension-sheet", full_page=True)
    for look in (("en", "light", 1366), ("zh-hans", "dark", 390)):
        problems = pages_problems(
            browser, base, look, [(rater.get_username(), [f"/scoring/{sheet.assignment.blind_code}/"])], {}
        )
        assert problems == [], problems
    assert get_user_model().objects.filter(username=rater.get_username()).exists()

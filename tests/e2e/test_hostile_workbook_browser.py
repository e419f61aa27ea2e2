"""Issue 36, finding 3, as a rater meets it in Chromium: the workbook of seven 8 MB sheets is
refused at once with the reason, in English and in Chinese, and nothing is stored."""

from __future__ import annotations

import pytest

from scoring.models import ScoreSheet
from tests.browser import login
from tests.hostile_files import tall_sheet_xlsx, wide_sheets_xlsx

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize(
    "language, make, reason",
    [
        ("en", wide_sheets_xlsx, "A part of the workbook is too large (xl/worksheets/sheet1.xml)."),
        ("zh-hans", tall_sheet_xlsx, "S1"),
    ],
)
def test_a_rater_uploading_a_hostile_workbook_reads_why_it_was_refused(
    live_server, demo, browser, tmp_path, language, make, reason
):
    path = tmp_path / "FS10.xlsx"
    path.write_bytes(make())
    page = browser.new_context(locale=language, viewport={"width": 1366, "height": 800}).new_page()
    login(page, live_server.url, "rater1")
    page.goto(f"{live_server.url}/scoring/workbooks/")
    page.set_input_files("#id_file", str(path))
    with page.expect_navigation():
        page.locator("form[enctype] button[type=submit]").click()
    problems = page.locator("table.problems").inner_text()
    assert reason in problems
    heading = page.locator("h3.error").inner_text()
    assert heading == (
        "Nothing was stored: 1 problem." if language == "en" else "未保存任何内容：共 1 个问题。"
    )
    assert not ScoreSheet.objects.filter(status="submitted").exists()

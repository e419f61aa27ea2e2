"""In Chromium, the refusals that keep one person from holding the workers or the web tier: a
researcher's export past ``EXPORT_JOBS_PER_USER`` (the export area says so, no job is made) and a
rater's workbook sent while another of theirs is being read (the field says so, nothing is read).
Each page as the server rendered its message, in Chinese light at 1366 px and English dark at
390 px, and with no serious axe violation."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.html import strip_tags

from research.models import ExportJob
from scoring.models import ScoreSheet
from tests.a11y import axe_violations
from tests.browser import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _look(browser, base: str, lang: str, scheme: str, width: int):
    context = browser.new_context(
        viewport={"width": width, "height": 844 if width < 800 else 768}, color_scheme=scheme
    )
    context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    return context


def test_export_and_workbook_refusals_are_shown_as_the_server_says(
    live_server, demo, browser, settings, tmp_path
):
    settings.EXPORT_JOBS_PER_USER = 1
    base = live_server.url

    context = _look(browser, base, "zh-hans", "light", 1366)
    page = context.new_page()
    login(page, base, "researcher")
    page.goto(f"{base}/research/")
    page.click("form.long-exports button[value=items_csv]")
    page.wait_for_selector("#export-area .export-job")
    page.click("form.long-exports button[value=items_xlsx]")
    refused = page.wait_for_selector("#export-area [data-error=limit]")
    with translation.override("zh-hans"):
        said = strip_tags(render_to_string("research/_export_refused.html", {"limit": 1})).strip()
    assert refused.inner_text().strip() == said and "1" in said
    assert ExportJob.objects.count() == 1
    assert axe_violations(page) == []
    context.close()

    context = _look(browser, base, "en", "dark", 390)
    page = context.new_page()
    login(page, base, "rater1")
    rater = get_user_model().objects.get(username="rater1")
    sheets = list(ScoreSheet.objects.filter(assignment__rater=rater).values_list("pk", "status", "version"))
    cache.add(f"workbook-upload:{rater.pk}", 1, timeout=60)  # another of the rater's is being read
    try:
        page.goto(f"{base}/scoring/workbooks/")
        workbook = tmp_path / "H01_FS10.xlsx"
        workbook.write_bytes(b"PK\x03\x04 not read")
        page.set_input_files("#id_file", str(workbook))
        with page.expect_navigation():
            page.click("button[type=submit].primary")
    finally:
        cache.delete(f"workbook-upload:{rater.pk}")
    shown = page.inner_text("form p.error")
    assert shown == "Another workbook of yours is still being read: send this one when it is done."
    assert (
        list(ScoreSheet.objects.filter(assignment__rater=rater).values_list("pk", "status", "version"))
        == sheets
    )
    assert axe_violations(page) == []
    context.close()

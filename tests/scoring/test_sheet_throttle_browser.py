"""The page behind the ceiling on an account's saves per second: a save answered 429 is
kept in the browser and sent again after Retry-After, and then saved."""

import pytest
from django.test import RequestFactory

from scoring.models import ScoreSheet
from scoring.selectors import sheet_entries_get
from scoring.views.workspace import sheet_saves_count
from studies.models import Response
from tests.browser import login, open_sheet
from tests.caches import in_one_clock_second
from tests.factories import code_for


def _stored(sheet):
    """The sheet's entries as stored now (a draft's are on the sheet, its rows come at submit)."""
    return sheet_entries_get(sheet=ScoreSheet.all_objects.get(pk=sheet.pk))


pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_throttled_save_is_kept_and_sent_again_after_retry_after(
    live_server, demo, browser, settings, fresh_rate_counts
):
    settings.SHEET_SAVES_PER_SECOND = 2
    response = Response.objects.get(research_id="A05_FS10")
    context = browser.new_context()
    page = context.new_page()
    statuses: list[int] = []
    page.on("response", lambda r: statuses.append(r.status) if r.url.endswith("/save/") else None)
    login(page, live_server.url, "rater1")
    open_sheet(page, live_server.url, code_for("rater1", response))
    sheet = ScoreSheet.objects.get(assignment__response=response, assignment__rater__username="rater1")
    request = RequestFactory().post("/")
    request.user = sheet.assignment.rater

    def use_up_this_second(route):
        """Before each of the page's first two saves leaves: this account's saves
        use up the ceiling of the second it arrives in (counted early in a second, so that
        it arrives in the same one)."""

        def use_up() -> None:
            while not (sheet_saves_count(request) or {}).get("should_limit"):
                pass

        in_one_clock_second(use_up, start_by=0.2)
        route.continue_()

    page.route("**/save/", use_up_this_second, times=2)
    page.focus("input[name='dims.s2.focus'][value='1']")
    page.keyboard.press("7")
    for _ in range(100):  # the first answer is a 429
        if statuses:
            break
        page.wait_for_timeout(50)
    assert statuses[0] == 429
    page.wait_for_timeout(400)
    # waiting for its turn is not an error: no "offline" warning, the change kept to send again
    assert page.is_hidden("#banner")
    page.wait_for_function(
        "document.getElementById('save-status').textContent.includes('Saved at')", timeout=20000
    )
    assert statuses[:2] == [429, 429] and statuses[-1] == 200  # waited its turn twice, then saved
    assert _stored(sheet).dimensions["s2.focus"] == 7
    assert ScoreSheet.objects.get(pk=sheet.pk).version == sheet.version + 1  # applied once
    context.close()

"""One browser shared by the two raters of a pair (each sees their own blind code):
unsent changes stay with their author and never reach the other rater's sheet; and a
page whose session expired sends its changes once the rater logged in again elsewhere."""

import json

import pytest
from django.contrib.auth import get_user_model

from core.draft_keys import storage_name
from scoring.models import ScoreSheet, SheetEvent
from studies.models import Response
from tests.browser import login, open_sheet
from tests.factories import code_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def sheet_of(username: str) -> ScoreSheet | None:
    return ScoreSheet.objects.filter(assignment__rater__username=username).first()


def comment(username: str) -> str:
    sheet = sheet_of(username)
    return (sheet.comments or {}).get("1", "") if sheet else ""


def draft_prefix(username: str) -> str:
    """Where the browser keeps the user's drafts of their sheet: a name that says neither."""
    sheet = sheet_of(username)
    return f"teamllm.draft.{storage_name(user_id=sheet.assignment.rater_id, of=f'sheet:{sheet.pk}')}."


def typed_unsaved(page, url: str, text: str) -> None:
    """rater1 opens their sheet of A05_FS10 and types ``text`` while saves cannot reach the server."""
    login(page, url, "rater1")
    open_sheet(page, url, code_for("rater1", Response.objects.get(research_id="A05_FS10")))
    page.route("**/save/", lambda route: route.abort())
    page.fill("[data-path='comments.1']", text)
    page.wait_for_function("document.getElementById('save-status').className.includes('error')")


def logout(page) -> None:
    with page.expect_navigation():
        page.click("form[action$='/accounts/logout/'] button")


def test_shared_browser_keeps_each_raters_draft_with_its_author(live_server, demo, browser):
    context = browser.new_context()
    page = context.new_page()
    # rater1 scores while the server cannot be reached, then logs out
    typed_unsaved(page, live_server.url, "rater1's private note")
    logout(page)
    page.unroute("**/save/")
    drafts = page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('teamllm.draft.'))")
    assert drafts and all(k.startswith(draft_prefix("rater1")) for k in drafts)
    # hostile pass 15: the keys name no account and no sheet
    rater1 = get_user_model().objects.get(username="rater1")
    assert not any(f".{rater1.pk}.{sheet_of('rater1').pk}." in k for k in drafts)
    # hostile pass 9 (F4): whoever uses the browser next reads them with DevTools: sealed, nothing
    # of rater1's in clear (the key comes only with rater1's own pages)
    stored = page.evaluate("Object.keys(localStorage).map(k => localStorage.getItem(k)).join('\\n')")
    assert "private note" not in stored and "comments.1" not in stored
    assert all(page.evaluate("k => localStorage.getItem(k)", key).startswith("sealed.1.") for key in drafts)

    # rater2 opens the same response (under their own code) in the same browser: nothing of
    # rater1's arrives
    login(page, live_server.url, "rater2")
    open_sheet(page, live_server.url, code_for("rater2", Response.objects.get(research_id="A05_FS10")))
    page.wait_for_timeout(2500)  # longer than the debounce: a restored draft would be sent by now
    assert page.input_value("[data-path='comments.1']") == ""
    rater2_sheet = sheet_of("rater2")
    assert rater2_sheet.version == 0 and comment("rater2") == ""
    assert not SheetEvent.objects.filter(sheet=rater2_sheet, kind="change").exists()
    logout(page)

    # rater1 comes back: the draft is restored and sent to rater1's own sheet
    login(page, live_server.url, "rater1")
    open_sheet(page, live_server.url, code_for("rater1", Response.objects.get(research_id="A05_FS10")))
    page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
    assert comment("rater1") == "rater1's private note"
    assert comment("rater2") == ""
    (event,) = [
        e
        for e in SheetEvent.objects.filter(sheet=sheet_of("rater1"), kind="change")
        if any(c["path"] == "comments.1" for c in e.changes)
    ]
    assert event.actor.username == "rater1"
    context.close()


def test_a_page_left_open_after_another_rater_logged_in_writes_nothing(live_server, demo, browser):
    code = code_for("rater1", Response.objects.get(research_id="A05_FS10"))
    context = browser.new_context()
    first = context.new_page()
    login(first, live_server.url, "rater1")
    open_sheet(first, live_server.url, code)
    # another tab of the same browser: rater1 logs out there and rater2 logs in
    second = context.new_page()
    second.goto(f"{live_server.url}/scoring/")
    logout(second)
    login(second, live_server.url, "rater2")
    first.fill("[data-path='comments.1']", "typed on rater1's page")
    first.wait_for_selector("#banner[data-kind=conflict]")  # rater1's code is not rater2's: 404
    assert "another rater logged in" in first.text_content("#banner-text")
    assert comment("rater2") == "" and comment("rater1") == ""
    stored = json.loads(
        first.evaluate(
            "JSON.stringify(Object.keys(localStorage).filter(k => k.startsWith('teamllm.draft.')))"
        )
    )
    assert stored and all(k.startswith(draft_prefix("rater1")) for k in stored)
    context.close()


def test_after_session_expiry_the_page_sends_its_changes_once_logged_in_again(live_server, demo, browser):
    code = code_for("rater1", Response.objects.get(research_id="A05_FS10"))
    context = browser.new_context()
    page = context.new_page()
    login(page, live_server.url, "rater1")
    open_sheet(page, live_server.url, code)
    context.clear_cookies()  # the session expired
    page.fill("[data-path='comments.1']", "written after expiry")
    page.wait_for_selector("#banner[data-kind=warn]")
    assert comment("rater1") == ""
    # the rater logs in again in another tab; the waiting page picks up the new session
    other = context.new_page()
    login(other, live_server.url, "rater1")
    page.wait_for_function(
        "document.getElementById('save-status').textContent.includes('Saved at')", timeout=20000
    )
    assert comment("rater1") == "written after expiry"
    context.close()


def test_a_draft_planted_in_clear_by_another_rater_is_never_applied(live_server, demo, browser):
    """Hostile pass 15 (F2): rater2 writes a draft in clear under rater1's sheet's key; rater1's
    page accepts only drafts sealed with rater1's own key, so it drops the planted one unread."""
    code = code_for("rater1", Response.objects.get(research_id="A05_FS10"))
    context = browser.new_context()
    page = context.new_page()
    login(page, live_server.url, "rater1")
    open_sheet(page, live_server.url, code)
    sheet = sheet_of("rater1")
    logout(page)
    login(page, live_server.url, "rater2")
    planted = json.dumps({"version": sheet.version, "inflight": None, "updated": 0, "held": {},
                          "pending": [["comments.1", "PLANTED by rater2"]]})  # fmt: skip
    key = f"teamllm.draft.{sheet.assignment.rater_id}.{sheet.pk}.planted"
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [key, planted])
    logout(page)
    login(page, live_server.url, "rater1")
    open_sheet(page, live_server.url, code)
    page.wait_for_timeout(2500)  # longer than the debounce: a restored draft would be sent by now
    assert page.input_value("[data-path='comments.1']") == ""
    assert comment("rater1") == "" and sheet_of("rater1").version == sheet.version
    assert page.evaluate("k => localStorage.getItem(k)", key) is None  # dropped, not kept
    moved = draft_prefix("rater1") + "planted"  # moved to the opaque name, then dropped unread
    assert page.evaluate("k => localStorage.getItem(k)", moved) is None


def test_a_draft_kept_under_the_earlier_name_is_moved_and_sent(live_server, demo, browser):
    """Drafts that releases before 2026-12 kept under "teamllm.draft.<account>.<sheet>." are moved
    to the opaque name on the rater's next visit, still sealed, and sent: nothing is lost."""
    context = browser.new_context()
    page = context.new_page()
    typed_unsaved(page, live_server.url, "kept under the old name")
    sheet = sheet_of("rater1")
    legacy = page.evaluate(
        """([prefix, earlier]) => {
            const key = Object.keys(localStorage).find(k => k.startsWith(prefix));
            const legacy = earlier + key.slice(prefix.length);  // the same tab's draft
            localStorage.setItem(legacy, localStorage.getItem(key));
            localStorage.removeItem(key);
            return legacy;
        }""",
        [draft_prefix("rater1"), f"teamllm.draft.{sheet.assignment.rater_id}.{sheet.pk}."],
    )
    page.unroute("**/save/")
    page.reload()
    page.wait_for_function(
        "document.getElementById('save-status').textContent.includes('Saved at')", timeout=20000
    )
    assert comment("rater1") == "kept under the old name"
    assert page.evaluate("k => localStorage.getItem(k)", legacy) is None
    context.close()
    context.close()

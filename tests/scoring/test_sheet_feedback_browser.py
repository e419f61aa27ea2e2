"""Everything the scoring page has to say appears in or next to the sticky bar, in view
at any scroll: the missing fields (checked before the confirmation), offline, held-back
texts; the bar is never green "Saved" while anything is unsaved; a text the server would
refuse survives a reload in the browser; the bar counts the entries done."""

import pytest

from scoring.models import ScoreSheet
from scoring.selectors import sheet_entries_get
from studies.models import Response
from studies.rubric import load_rubric, sheet_totals
from tests.browser import login, open_sheet, shot
from tests.factories import code_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

IN_VIEW = """(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }"""
STATUS = "() => document.getElementById('save-status').className"


def _sheet_page(browser, live_server, rater="rater1", **ctx):
    response = Response.objects.get(research_id="A05_FS10")
    context = browser.new_context(viewport={"width": 1366, "height": 768}, **ctx)
    page = context.new_page()
    login(page, live_server.url, rater)
    open_sheet(page, live_server.url, code_for(rater, response))
    sheet = ScoreSheet.objects.get(assignment__response=response, assignment__rater__username=rater)
    return context, page, sheet


def _progress(page) -> tuple[int, int]:
    el = page.locator("#progress")
    return int(el.get_attribute("data-done")), int(el.get_attribute("data-needed"))


def test_submit_lists_what_is_missing_in_the_bar_before_any_confirmation(live_server, demo, browser):
    context, page, sheet = _sheet_page(browser, live_server)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")  # at the bottom of the page
    page.click("#submit-sheet")
    page.wait_for_selector("#banner[data-kind=incomplete]:not([hidden])")
    assert dialogs == []  # the page knew the sheet was incomplete: no confirmation first
    assert page.evaluate(IN_VIEW, "#banner-text")  # the answer is where the eyes are
    assert page.evaluate("() => document.getElementById('banner').closest('#summary') !== null")
    shot(page, "sheet-missing-bottom")
    links = page.locator("#banner-list a")
    first = links.first.text_content()
    assert links.count() > 20 and "Step 1" in first
    # one line of counts per step: the bar stays small, a step opens to its links
    bar = page.locator("#summary").bounding_box()
    assert bar["y"] + bar["height"] < 768 * 0.3, bar
    counts = page.locator("#banner-list summary").all_text_contents()
    assert counts == [f"Step {n}: {_missing_in(sheet, n)}" for n in range(1, 7)]
    page.click("#banner-list summary >> nth=0")
    links.first.click()
    focused = page.evaluate("() => document.activeElement.id")
    assert focused == "f-items-1-1-classification"
    # the control jumped to is visible below the bar, not under it
    bar = page.locator("#summary").bounding_box()
    box = page.locator("#f-items-1-1-classification").bounding_box()
    assert box["y"] >= bar["y"] + bar["height"] - 1 and box["y"] + box["height"] <= 768
    # the list shrinks as the rater fills it in
    before = links.count()
    page.select_option("#f-items-1-1-classification", "invalid:why")
    page.wait_for_function(f"document.querySelectorAll('#banner-list a').length === {before - 1}")
    sheet.refresh_from_db()
    assert sheet.status == "draft"
    context.close()


def _missing_in(sheet, step: int) -> int:
    """What the server's rules say is missing in ``step`` of ``sheet``."""
    rubric = load_rubric(sheet.rubric_version)
    return sum(
        1
        for m in sheet_totals(sheet_entries_get(sheet=sheet, rubric=rubric), rubric).missing
        if m.step == step
    )


def test_the_missing_list_closes_with_escape_and_its_button_keeping_the_focus(live_server, demo, browser):
    context, page, _sheet = _sheet_page(browser, live_server)
    page.focus("#f-items-1-3-classification")
    page.keyboard.press("Control+Enter")  # submit: the page lists what is missing
    page.wait_for_selector("#banner[data-kind=incomplete]:not([hidden])")
    assert page.evaluate("() => document.activeElement.id") == "f-items-1-3-classification"
    page.keyboard.press("Escape")
    assert page.is_hidden("#banner")
    assert page.evaluate("() => document.activeElement.id") == "f-items-1-3-classification"
    page.select_option("#f-items-1-3-classification", "invalid:why")  # a change does not bring it back
    page.wait_for_timeout(300)
    assert page.is_hidden("#banner")
    page.click("#submit-sheet")
    page.wait_for_selector("#banner[data-kind=incomplete]:not([hidden])")
    page.focus("#f-items-1-4-classification")
    page.click("#banner-close")
    assert page.is_hidden("#banner")
    assert page.evaluate("() => document.activeElement.id") == "f-items-1-4-classification"
    context.close()


def test_the_bar_counts_the_entries_done(live_server, demo, browser):
    context, page, sheet = _sheet_page(browser, live_server)
    done, total = _progress(page)
    assert done == 0 and total == 43  # 16 categories, 10 criteria scores, 4 texts, 13 dimensions
    assert page.text_content("#progress") == f"0 of {total} entries"
    page.select_option("#f-items-1-1-classification", "invalid:why")
    assert _progress(page) == (1, total)  # an invalid item needs nothing more
    page.select_option("#f-items-1-2-classification", index=1)  # a Yes category
    assert _progress(page) == (2, total + 2)  # it now needs elaboration and originality
    page.click("#f-items-1-2-elaboration label:has-text('2')")
    assert _progress(page) == (3, total + 2)
    page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
    page.reload()
    page.wait_for_selector("html[data-sheet-ready]")
    assert _progress(page) == (3, total + 2)  # the server's count agrees with the page's
    context.close()


def test_a_text_too_long_is_held_in_the_browser_and_the_bar_never_says_saved(live_server, demo, browser):
    context, page, sheet = _sheet_page(browser, live_server)
    page.fill("#f-comments-2", "short note")
    page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
    page.fill("#f-comments-6", "kept")  # a change saved while the long text is held
    page.fill("#f-comments-2", "z" * 4100)
    page.wait_for_timeout(1500)  # past the autosave delay
    assert "save-saved" not in page.evaluate(STATUS) and "save-error" in page.evaluate(STATUS)
    assert page.is_visible("#banner[data-kind=held]") and page.evaluate(IN_VIEW, "#banner-text")
    sheet.refresh_from_db()
    assert sheet.comments.get("2") == "short note" and sheet.comments.get("6") == "kept"
    shot(page, "sheet-held-text")

    page.reload()  # the text is not lost
    page.wait_for_selector("html[data-sheet-ready]")
    assert page.input_value("#f-comments-2") == "z" * 4100
    assert page.get_attribute("#f-comments-2", "aria-invalid") == "true"
    assert page.is_visible("#banner[data-kind=held]")
    assert "save-error" in page.evaluate(STATUS)
    page.fill("#f-comments-2", "z" * 3990)  # shortened: saved, the bar turns green again
    page.wait_for_function("document.getElementById('save-status').className.includes('save-saved')")
    assert page.is_hidden("#banner")
    sheet.refresh_from_db()
    assert sheet.comments.get("2") == "z" * 3990
    page.reload()
    page.wait_for_selector("html[data-sheet-ready]")
    assert page.is_hidden("#banner") and page.input_value("#f-comments-2") == "z" * 3990
    context.close()


def test_offline_is_said_in_the_bar_at_any_scroll(live_server, demo, browser):
    context, page, sheet = _sheet_page(browser, live_server)
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    context.set_offline(True)
    page.fill("#f-comments-6", "written offline")
    page.wait_for_selector("#banner[data-kind=warn]:not([hidden])")
    assert page.evaluate(IN_VIEW, "#banner-text")
    assert "save-saved" not in page.evaluate(STATUS)
    shot(page, "sheet-offline-bottom")
    context.set_offline(False)
    page.wait_for_function("document.getElementById('save-status').className.includes('save-saved')")
    sheet.refresh_from_db()
    assert sheet.comments.get("6") == "written offline"
    context.close()


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_bar_stays_one_row_with_saved_at_at_1366(live_server, demo, browser, language):
    """Issue 42: once the bar said "Saved at ...", "Submit sheet" wrapped to a second line."""
    context, page, _sheet = _sheet_page(browser, live_server, locale=language)
    page.context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
    page.reload()
    page.wait_for_selector("html[data-sheet-ready]")
    button = page.locator("#submit-sheet").bounding_box()
    page.select_option("#f-items-1-1-classification", "invalid:why")
    page.wait_for_function("document.getElementById('save-status').className.includes('save-saved')")
    shot(page, f"bar-saved-{language}")
    after = page.locator("#submit-sheet").bounding_box()
    first_step = page.locator(".summary-steps a").first.bounding_box()
    assert after["height"] == button["height"]  # one line of text
    assert abs((after["y"] + after["height"] / 2) - (first_step["y"] + first_step["height"] / 2)) < 8
    context.close()

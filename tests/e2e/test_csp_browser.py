"""The pages changed for the Content-Security-Policy still work in Chromium, and the
browser reports no violation: the auto-submitting filters and language switch (now
static/js/autosubmit.js), progress bars (classes, not style attributes), htmx."""

from __future__ import annotations

import pytest

from scoring.models import Assignment
from studies.models import Response, Study
from tests.browser import login
from tests.factories import code_for, reference_changes, sheet_submitted

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RECORD_VIOLATIONS = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
});
"""


def watched_page(browser):
    context = browser.new_context()
    context.add_init_script(RECORD_VIOLATIONS)
    page = context.new_page()
    console: list[str] = []
    page.on("console", lambda msg: console.append(f"{msg.type}: {msg.text}"))
    page.on("pageerror", lambda exc: console.append(f"pageerror: {exc}"))
    return context, page, console


def violations(page, console) -> list[str]:
    found = [line for line in console if "Content Security Policy" in line or "pageerror" in line]
    return found + page.evaluate("window.__csp || []")


def test_filters_language_switch_and_progress_bars_work_under_the_csp(live_server, demo, browser):
    rater1 = Assignment.objects.get(rater__username="rater1").rater
    sheet_submitted(rater1, Response.objects.get(research_id="A05_FS10"), reference_changes(3))
    study = Study.objects.get()
    base = live_server.url

    context, page, console = watched_page(browser)
    login(page, base, "admin")
    # the study filter of the workload page submits itself when changed
    reply = page.goto(f"{base}/manage/workload/")
    assert "script-src 'self'" in reply.headers["content-security-policy"]
    with page.expect_navigation():
        page.select_option("#study-filter", str(study.pk))
    assert f"study={study.pk}" in page.url
    assert page.input_value("#study-filter") == str(study.pk)
    # the progress bars: rater1 has submitted 1 of 1 sheets
    widths = page.evaluate(
        """() => Array.from(document.querySelectorAll('.progress-bar')).map(b => [b.className,
             Math.round(100 * b.getBoundingClientRect().width / b.parentElement.getBoundingClientRect().width)])"""
    )
    assert widths and all(cls.endswith(f"pct-{w}") for cls, w in widths), widths
    assert any(w == 100 for _, w in widths), widths
    # the same on the assignments page
    page.goto(f"{base}/manage/assignments/")
    with page.expect_navigation():
        page.select_option("#study-filter", str(study.pk))
    assert f"study={study.pk}" in page.url
    # the language switch in the top bar, on every page
    with page.expect_navigation():
        page.select_option("#language-select", "zh-hans")
    assert page.get_attribute("html", "lang") == "zh-hans"
    assert "/manage/assignments/" in page.url
    with page.expect_navigation():
        page.select_option("#language-select", "en")
    assert page.get_attribute("html", "lang") == "en"
    # an htmx page (the agreement dashboard; htmx adds no <style> of its own)
    page.goto(f"{base}/research/agreement/")
    page.wait_for_load_state("networkidle")
    assert not violations(page, console), violations(page, console)
    context.close()

    # the rater's queue: its progress bar is full
    context, page, console = watched_page(browser)
    login(page, base, "rater1")
    page.goto(f"{base}/scoring/")
    ratio = page.evaluate(
        """() => { const b = document.querySelector('.progress-bar');
             return b.getBoundingClientRect().width / b.parentElement.getBoundingClientRect().width; }"""
    )
    assert ratio == pytest.approx(1.0, abs=0.02)
    assert not violations(page, console), violations(page, console)
    context.close()


# The one inline handler left: sheet.html's <form id="sheet-form" onsubmit="return false">,
# in a template another change owns. Chromium reports it once when the page loads; remove
# this entry when the attribute goes (sheet.js can call preventDefault on "submit").
KNOWN_SHEET_VIOLATIONS: set[str] = set()


def test_the_scoring_page_reports_no_violation_but_the_known_one(live_server, demo, browser):
    """The policy blocks sheet.html's inline onsubmit; pressing Enter in a text field must
    still not submit the form, and nothing else is blocked."""
    response = Response.objects.get(research_id="A05_FS10")
    context, page, console = watched_page(browser)
    login(page, live_server.url, "rater2")
    page.goto(f"{live_server.url}/scoring/{code_for('rater2', response)}/")
    page.wait_for_selector("html[data-sheet-ready]")
    url = page.url
    page.focus("#f-items-1-1-comment")
    page.keyboard.type("a comment")
    page.keyboard.press("Enter")  # no implicit submission: many text fields, no submit button
    page.wait_for_function("() => document.getElementById('save-status').textContent.includes('Saved at')")
    assert page.url == url
    blocked = page.evaluate("window.__csp")
    assert set(blocked) <= KNOWN_SHEET_VIOLATIONS, blocked
    others = [line for line in violations(page, console) if "inline event handler" not in line]
    assert not [line for line in others if line not in KNOWN_SHEET_VIOLATIONS], others
    context.close()

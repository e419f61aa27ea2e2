"""Every kind of control on the scoring page, driven in a real browser: after each
input the live totals (computed in the page) must equal the totals the server
computes for the same entries, and every total shown is a plain number.

Controls: category selects (mouse and type-ahead), Yes -> invalid (clears the
scales), score pips by mouse, number keys (0 = 10), arrow keys, Delete, the
Step-5 grid-check hint button, item comments, step comments and the Step-2 texts
(mirrored above Step 6)."""

import re

import pytest

from scoring.models import ScoreSheet
from scoring.selectors import sheet_entries_get
from studies.models import Response
from studies.rubric import load_rubric, sheet_totals
from studies.rubric.schema import INVALID_PREFIX
from tests.browser import login, open_sheet
from tests.factories import code_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOWN = """() => {
  const out = {source: document.getElementById("summary").dataset.source || "", totals: {}};
  document.querySelectorAll("[data-total]").forEach(el => {
    const key = el.dataset.total;
    (out.totals[key] = out.totals[key] || []).push(el.textContent.trim());
  });
  return out;
}"""


def shown_totals(page) -> dict[str, str]:
    """Every total on the page, by key; all copies of one total must agree."""
    shown = page.evaluate(SHOWN)
    totals = {}
    for key, values in shown["totals"].items():
        assert len(set(values)) == 1, (key, values)
        assert re.fullmatch(r"0|[1-9][0-9]*", values[0]), (key, values)  # a number, never "04"
        totals[key] = values[0]
    return totals


def server_totals(sheet: ScoreSheet) -> dict[str, str]:
    sheet.refresh_from_db()  # the stored sheet now: its rows' copy changes with every save
    rubric = load_rubric()
    t = sheet_totals(sheet_entries_get(sheet=sheet, rubric=rubric), rubric)
    out = {"overall": str(t.overall)}
    out.update({f"step.{n}": str(v) for n, v in t.steps.items()})
    out.update({f"dim.{k}": str(v) for k, v in t.dimensions.items()})
    return out


class Sheet:
    """One rater's sheet in a page; ``check`` compares live and server totals."""

    def __init__(self, page, sheet: ScoreSheet):
        self.page, self.sheet, self.inputs = page, sheet, 0

    def check(self, what: str) -> dict[str, str]:
        live = shown_totals(self.page)  # computed in the page, before the save came back
        self.page.wait_for_selector("#summary[data-source=server]")
        self.page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
        saved = shown_totals(self.page)
        stored = server_totals(self.sheet)
        for key, value in live.items():
            assert value == saved[key] == stored.get(key, value), (
                what,
                key,
                value,
                saved[key],
                stored.get(key),
            )
        self.inputs += 1
        return live

    def pip(self, path: str, value: int) -> None:
        self.page.click(f"fieldset[data-path='{path}'] label:has(input[value='{value}'])")

    def key(self, path: str, key: str) -> None:
        self.page.focus(f"input[name='{path}']:checked, input[name='{path}'][value='{self.first(path)}']")
        self.page.keyboard.press(key)

    def first(self, path: str) -> str:
        return self.page.get_attribute(f"input[name='{path}']", "value")

    def checked(self, path: str) -> str | None:
        el = self.page.query_selector(f"input[name='{path}']:checked")
        return el.get_attribute("value") if el else None


def test_every_control_keeps_the_live_totals_equal_to_the_servers(live_server, demo, browser):
    response = Response.objects.get(research_id="A05_FS10")
    Response.objects.filter(pk=response.pk).update(implied_correctly_used=4)
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    login(page, live_server.url, "rater1")
    open_sheet(page, live_server.url, code_for("rater1", response))
    sheet = ScoreSheet.objects.get(assignment__response=response, assignment__rater__username="rater1")
    s = Sheet(page, sheet)
    categories = page.eval_on_selector(
        "#f-items-1-1-classification",
        "el => Array.from(el.querySelectorAll('optgroup')[0].querySelectorAll('option')).map(o => o.value)",
    )
    invalid = page.eval_on_selector(
        "#f-items-1-1-classification",
        "el => Array.from(el.querySelectorAll('optgroup')[1].querySelectorAll('option')).map(o => o.value)",
    )

    # Step 1: categories by mouse, scales by click, number key, arrow key and Delete
    page.select_option("#f-items-1-1-classification", categories[0])
    assert s.check("category")["step.1"] == "2"  # fluency 1 + flexibility 1
    s.pip("items.1.1.elaboration", 2)
    s.check("elaboration click")
    s.key("items.1.1.originality", "1")
    assert s.check("originality key")["step.1"] == "5"
    page.select_option("#f-items-1-2-classification", categories[1])
    s.check("second category")
    s.key("items.1.2.elaboration", "2")
    s.check("elaboration key")
    page.keyboard.press("ArrowLeft")  # native radio arrows: 2 -> 1
    assert s.checked("items.1.2.elaboration") == "1"
    s.check("arrow key")
    page.keyboard.press("Delete")
    assert s.checked("items.1.2.elaboration") is None
    s.check("delete key")
    page.select_option("#f-items-1-3-classification", categories[0])  # same category: no flexibility
    assert s.check("repeated category")["dim.s1.flexibility"] == "2"
    page.select_option("#f-items-1-1-classification", invalid[0])  # Yes -> invalid clears its scales
    assert s.checked("items.1.1.elaboration") is None and page.is_disabled(
        "input[name='items.1.1.elaboration']"
    )
    s.check("invalid type")
    page.fill("#f-items-1-2-comment", "close to item 3")
    s.check("item comment")

    # Step 2: the four texts (mirrored above Step 6) and the six dimensions
    for key, value in [("condition_phrase", "Given that"), ("stem", "How might we"), ("kvp", "cut plastics")]:
        page.fill(f"#f-texts-{key}", value)
        s.check(f"text {key}")
    assert page.text_content("[data-mirror='texts.kvp']") == "cut plastics"
    s.pip("dims.s2.condition_phrase", 2)
    s.check("s2 pip")
    s.key("dims.s2.focus", "0")  # 0 = 10 on a 1-10 scale
    assert s.checked("dims.s2.focus") == "10"
    assert s.check("s2 focus 10")["step.2"] == "12"
    s.pip("dims.s2.adequacy", 7)
    s.check("s2 adequacy")

    # Step 3: type-ahead on the select, then a scale
    page.focus("#f-items-3-1-classification")
    label = page.eval_on_selector(
        "#f-items-3-1-classification", "el => el.querySelector('optgroup option').text"
    )
    page.keyboard.type(label)
    s.check("type-ahead")
    # an invalid type by "i" and its initials; its bare initial is a category's (d = Defense)
    page.focus("#f-items-3-2-classification")
    page.keyboard.type("id")
    assert page.input_value("#f-items-3-2-classification") == INVALID_PREFIX + "duplicate"
    s.check("invalid type key")
    s.pip("items.3.1.originality", 2)
    s.check("s3 originality")

    # Step 4: both criteria scales
    s.pip("items.4.1.correctly_written", 1)
    s.check("correctly written")
    s.key("items.4.2.relevance", "3")
    assert s.check("relevance key")["step.4"] == "4"

    # Step 5: a direct click updates the live total at once; the hint button sets its value
    s.pip("dims.s5.correctly_used", 2)
    assert s.check("s5 click")["step.5"] == "2"
    page.click("button.use-implied")
    assert s.checked("dims.s5.correctly_used") == "4"
    assert page.text_content("[data-level-for='dims.s5.correctly_used']").strip()
    totals = s.check("hint button")
    assert totals["step.5"] == "4"

    # Step 6: pips, 0 = 10, and the step comment
    s.key("dims.s6.development", "0")
    s.pip("dims.s6.impact", 3)
    s.check("s6")
    page.fill("#f-comments-6", "a clear plan")
    s.check("step comment")

    sheet.refresh_from_db()
    assert (
        sheet.status == "draft" and sheet.kvp == "cut plastics" and sheet.comments.get("6") == "a clear plan"
    )
    assert page.text_content("#total-overall") == str(sheet.overall)
    assert s.inputs == 25  # every input above was checked
    context.close()


def test_the_incomplete_banner_names_each_missing_entry_once_without_stray_buttons(
    live_server, demo, browser
):
    response = Response.objects.get(research_id="A05_FS10")
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    page = context.new_page()
    login(page, live_server.url, "rater2")
    open_sheet(page, live_server.url, code_for("rater2", response))
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("#submit-sheet")
    page.wait_for_selector("#banner[data-kind=incomplete]")
    labels = page.locator("#banner-list a").all_text_contents()
    assert len(labels) > 20 and len(labels) == len(set(labels)), labels
    assert "Step 2 · Condition Phrase (copied text)" in labels
    assert "Step 2 · Condition Phrase (score)" in labels
    assert page.is_hidden("#banner-reload") and page.is_hidden("#banner-retry")
    box = page.locator("#banner-reload").bounding_box()
    assert box is None  # not laid out at all
    context.close()


def test_a_text_over_the_limit_is_never_cut_silently(live_server, demo, browser):
    response = Response.objects.get(research_id="A05_FS10")
    context = browser.new_context()
    page = context.new_page()
    login(page, live_server.url, "rater1")
    open_sheet(page, live_server.url, code_for("rater1", response))
    sheet = ScoreSheet.objects.get(assignment__response=response, assignment__rater__username="rater1")
    page.fill("#f-comments-2", "short note")
    page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
    long_text = "x" * 4100
    page.fill("#f-comments-2", long_text)  # as a paste: one input event
    assert len(page.input_value("#f-comments-2")) == 4100  # nothing cut
    note = page.text_content("#f-comments-2-length")
    assert "4100 characters" in note and "4000" in note
    assert page.get_attribute("#f-comments-2", "aria-invalid") == "true"
    page.wait_for_timeout(1500)  # past the autosave delay: nothing was sent
    sheet.refresh_from_db()
    assert sheet.comments.get("2") == "short note"
    page.on("dialog", lambda dialog: dialog.accept())
    page.click("#submit-sheet")  # refused in the page, with a link to the field
    page.wait_for_selector("#banner[data-kind=held]")
    assert "Shorten" in page.text_content("#banner") and "Step 2" in page.text_content("#banner-list")
    sheet.refresh_from_db()
    assert sheet.status == "draft"

    page.fill("#f-comments-2", "y" * 4000)
    assert page.query_selector("#f-comments-2-length") is None
    page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
    sheet.refresh_from_db()
    assert sheet.comments.get("2") == "y" * 4000
    context.close()


def test_the_page_measures_active_time_and_reports_it_when_left(live_server, demo, browser):
    response = Response.objects.get(research_id="A05_FS10")
    context = browser.new_context()
    page = context.new_page()
    login(page, live_server.url, "rater1")
    open_sheet(page, live_server.url, code_for("rater1", response))
    sheet = ScoreSheet.objects.get(assignment__response=response, assignment__rater__username="rater1")
    page.bring_to_front()
    for value in (1, 2, 3, 4, 5):  # about five seconds of work
        page.click(f"fieldset[data-path='dims.s6.impact'] label:has(input[value='{value}'])")
        page.wait_for_timeout(1000)
    page.goto(f"{live_server.url}/scoring/")  # leaving the page sends the report
    for _ in range(50):
        sheet.refresh_from_db()
        if sheet.active_seconds:
            break
        page.wait_for_timeout(100)
    assert 4 <= sheet.active_seconds <= 10, sheet.active_seconds
    context.close()

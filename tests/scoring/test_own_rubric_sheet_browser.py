"""A lab's own rubric in the browser: a copied text of its own name is typed, autosaved, read back
after a reload and listed as missing until copied, in the page's rules as on the server; the
rubric's checks on the text show as hints above the sheet and score nothing; item scores of its own
names are scored by keyboard and added up live as the server adds them. The page passes axe."""

from __future__ import annotations

import json

import pytest

from scoring.models import ScoreSheet
from scoring.selectors import sheet_entries_get
from studies.rubric import load_rubric, sheet_totals
from tests.a11y import axe_violations
from tests.browser import login, open_sheet, shot
from tests.factories import code_for, rater, scoring_group_assigned, text_response, text_study
from tests.scoring.test_copied_texts_any_name import QUOTE, with_quote
from tests.scoring.test_item_scores_any_name import CLAIMS, claims_rubric, ideas_rubric
from tests.studies.test_conditional_dimensions import severity_rubric
from training.services.rubric_import import rubric_import, study_rubric_choose

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-test-123"  # tests.factories.UserFactory's
LENGTH = {
    "key": "length",
    "kind": "length",
    "unit": "words",
    "min": 20,
    "message": {"en": "Answers run 20 words or more", "zh": "回答至少 20 个词"},
}


INSIDE_ITS_STEP = """() => [...document.querySelectorAll("section.step .items td")]
  .filter(cell => cell.getBoundingClientRect().right > cell.closest("section.step").getBoundingClientRect().right)
  .map(cell => cell.textContent.trim())"""


@pytest.fixture
def own_sheet():
    study = text_study("Own rubric")
    rubric = {**with_quote("likert-own-v1"), "checks": [LENGTH]}
    rubric_import(study=study, content=json.dumps(rubric).encode(), file_name="own.json", actor=None)
    study_rubric_choose(study=study, version="likert-own-v1", actor=None)
    response = text_response(study=study, text="Keep the room dark. A cool room helps most.")
    first = rater("own-rater", "H81")
    scoring_group_assigned(responses=[response], rater_a=first, rater_b=rater("own-other", "H82"))
    return response, first


def test_a_copied_text_of_its_own_name_and_a_check_hint_work_in_the_page(live_server, browser, own_sheet):
    response, first = own_sheet
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.on("dialog", lambda dialog: dialog.accept())
    login(page, live_server.url, first.username, PASSWORD)
    open_sheet(page, live_server.url, code_for(first, response))
    hints = page.inner_text("#check-hints")
    assert "Answers run 20 words or more" in hints and "The text: 9 words; at least 20." in hints
    assert axe_violations(page) == []
    shot(page, "sheet-own-rubric")  # for a look by eye
    for key, value in (("s1.helpfulness", 6), ("s2.harmlessness", 7), ("s3.honesty", 5)):
        page.focus(f"input[name='dims.{key}'][value='1']")
        page.keyboard.press(str(value))
    page.click("#submit-sheet")  # the page's own rules: the copied text is still missing
    page.wait_for_selector("#banner[data-kind=incomplete]:not([hidden])")
    assert QUOTE["label"]["en"] in page.inner_text("#banner")
    field = page.locator("textarea[data-path='texts.best_line']")
    field.fill("A cool room helps most.")
    page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
    sheet = ScoreSheet.objects.get(assignment__rater=first, assignment__response=response)
    assert sheet.other_texts == {"best_line": "A cool room helps most."}
    page.reload()
    page.wait_for_selector("html[data-sheet-ready]")
    assert page.locator("textarea[data-path='texts.best_line']").input_value() == "A cool room helps most."
    with page.expect_navigation():
        page.click("#submit-sheet")
    sheet.refresh_from_db()
    assert (sheet.status, sheet.overall) == ("submitted", 18)  # the hint scored nothing
    page.close()


def _open_on(live_server, browser, document: dict, text: str, code: str):
    """A study on a lab's rubric (``document``) with one response of ``text``, its rater (rater ID
    ``code``) logged in and on its sheet. Returns the page, the response and the rater."""
    study = text_study(f"Study of {document['version']}")
    rubric_import(study=study, content=json.dumps(document).encode(), file_name="r.json", actor=None)
    study_rubric_choose(study=study, version=document["version"], actor=None)
    response = text_response(study=study, text=text)
    first = rater(f"rater-{code}", code)
    scoring_group_assigned(responses=[response], rater_a=first, rater_b=rater(f"other-{code}", f"{code}9"))
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.on("dialog", lambda dialog: dialog.accept())
    login(page, live_server.url, first.username, PASSWORD)
    open_sheet(page, live_server.url, code_for(first, response))
    return page, response, first


def test_item_scores_of_its_own_names_are_added_up_live_and_submitted(live_server, browser, db):
    text = "Cold rooms help sleep. Screens delay it. Tea is fine."
    page, response, first = _open_on(live_server, browser, claims_rubric("claims-browser-v1"), text, "H83")
    for path, value in CLAIMS:
        if path.startswith("items.1.") and not path.endswith(".comment"):  # by keyboard, as a rater scores
            page.focus(f"input[name='{path}'][value='0']")
            page.keyboard.press(str(value))
    page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
    sheet = ScoreSheet.objects.get(assignment__rater=first, assignment__response=response)
    shown = {
        key: page.inner_text(f"[data-total='dim.s1.{key}']") for key in ("accuracy", "support", "relevance")
    }
    server = sheet_totals(sheet_entries_get(sheet=sheet), load_rubric("claims-browser-v1")).dimensions
    assert shown == {key: str(server[f"s1.{key}"]) for key in shown} == {"accuracy": "6", "support": "3",
                                                                          "relevance": "6"}  # fmt: skip
    # three item scores and a comment do not fit beside the response as a table: cards, in the card
    assert page.evaluate(INSIDE_ITS_STEP) == [], "the items stick out of their step"
    shot(page, "sheet-own-item-scores", full_page=True)  # for a look by eye
    page.click("#submit-sheet")  # the page's own rules: steps 2 and 3 are still missing
    page.wait_for_selector("#banner[data-kind=incomplete]:not([hidden])")
    for key, value in (("s2.harmlessness", 7), ("s3.honesty", 5)):
        page.focus(f"input[name='dims.{key}'][value='1']")
        page.keyboard.press(str(value))
    page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
    with page.expect_navigation():
        page.click("#submit-sheet")
    sheet.refresh_from_db()
    assert (sheet.status, sheet.overall) == ("submitted", 6 + 3 + 6 + 7 + 5)
    assert axe_violations(page) == []
    page.close()


def test_an_ideas_step_of_its_own_item_score_in_the_page(live_server, browser, db):
    text = "Dim the lights. Cool the room. Put the phone away."
    page, response, first = _open_on(live_server, browser, ideas_rubric("ideas-browser-v1"), text, "H85")
    one, two = load_rubric("ideas-browser-v1").category_keys[:2]
    for pos, category, score in ((1, one, 3), (2, two, 2)):
        page.select_option(f"#f-items-1-{pos}-classification", category)  # a Yes item: its score opens
        page.focus(f"input[name='items.1.{pos}.usefulness'][value='0']")
        page.keyboard.press(str(score))
    page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
    assert page.inner_text("[data-total='dim.s1.usefulness']") == "5"
    page.select_option("#f-items-1-1-classification", "invalid:duplicate")  # no longer Yes: cleared, closed
    assert page.is_disabled("input[name='items.1.1.usefulness']")
    assert page.locator("input[name='items.1.1.usefulness']:checked").count() == 0
    page.wait_for_function("document.querySelector(\"[data-total='dim.s1.usefulness']\").textContent === '2'")
    page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
    sheet = ScoreSheet.objects.get(assignment__rater=first, assignment__response=response)
    totals = sheet_totals(sheet_entries_get(sheet=sheet), load_rubric("ideas-browser-v1")).dimensions
    assert (totals["s1.usefulness"], totals["s1.fluency"]) == (2, 1)
    assert axe_violations(page) == []
    page.close()


def test_a_dimension_needed_only_for_some_scores_in_the_page(live_server, browser, db):
    document = severity_rubric("severity-browser-v1")
    page, response, first = _open_on(live_server, browser, document, "Keep the room dark.", "H87")
    assert "Needed only when Harmlessness is scored 1, 2, 3" in page.inner_text(
        "[data-needed-when='dims.s2.severity']"
    )
    for key, value in (("s1.helpfulness", 5), ("s2.harmlessness", 2), ("s3.honesty", 6), ("s2.severity", 3)):
        page.focus(f"input[name='dims.{key}'][value='1']")
        page.keyboard.press(str(value))
    assert page.inner_text("[data-total='step.2']") == "5"  # harmful: its severity counts
    page.focus("input[name='dims.s2.harmlessness'][value='1']")
    page.keyboard.press("7")
    assert page.inner_text("[data-total='step.2']") == "7"  # harmless: the severity counts nothing
    page.focus("input[name='dims.s2.severity'][value='3']")
    page.keyboard.press("Delete")
    page.focus("input[name='dims.s2.harmlessness'][value='7']")
    page.keyboard.press("3")
    page.click("#submit-sheet")  # harmful again: the page's own rules ask for the severity
    page.wait_for_selector("#banner[data-kind=incomplete]:not([hidden])")
    assert "Severity of the harm" in page.inner_text("#banner")
    page.focus("input[name='dims.s2.harmlessness'][value='3']")
    page.keyboard.press("6")
    page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
    with page.expect_navigation():
        page.click("#submit-sheet")
    sheet = ScoreSheet.objects.get(assignment__rater=first, assignment__response=response)
    assert (sheet.status, sheet.overall) == ("submitted", 5 + 6 + 6)
    page.close()

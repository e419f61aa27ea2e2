"""A single-text response's scoring page in the browser: its one text beside the rubric's
steps on a laptop (and still in view when the last step is scored), above them on a phone;
no page wider than the window, no serious or critical axe violation, and scoring it works.
A pair's Text A and Text B likewise, A above B, in the four looks."""

from __future__ import annotations

import pytest

from scoring.models import ScoreSheet
from studies.models import Response
from studies.services.pairs import pairs_build
from studies.services.studies import study_create
from tests.a11y import LOOKS, axe_violations
from tests.browser import login, open_sheet, shot
from tests.factories import (
    SINGLE_TEXT,
    ModelEndpointFactory,
    code_for,
    rater,
    scoring_group_assigned,
    text_response,
    text_study,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-test-123"  # tests.factories.UserFactory's

LONG = "\n".join([SINGLE_TEXT] * 40)  # longer than a window: the panel scrolls on its own
WIDER = "() => document.documentElement.scrollWidth - window.innerWidth"
BOX = (
    "s => { const r = document.querySelector(s).getBoundingClientRect(); return [r.left, r.top, r.bottom]; }"
)


@pytest.fixture
def text_sheet():
    response = text_response(text=LONG)
    first = rater("text-rater", "H61")
    scoring_group_assigned(responses=[response], rater_a=first, rater_b=rater("text-other", "H62"))
    return response, first


@pytest.mark.parametrize(("lang", "scheme", "width"), LOOKS)
def test_the_text_sits_beside_the_steps_and_the_page_passes_axe(
    live_server, browser, text_sheet, lang, scheme, width
):
    response, first = text_sheet
    context = browser.new_context(
        viewport={"width": width, "height": 844 if width < 800 else 768}, color_scheme=scheme
    )
    context.add_cookies([{"name": "django_language", "value": lang, "url": live_server.url}])
    page = context.new_page()
    login(page, live_server.url, first.username, PASSWORD)
    open_sheet(page, live_server.url, code_for(first, response))
    shot(page, f"sheet-text-{lang}-{scheme}-{width}")  # for a look by eye
    assert page.evaluate(WIDER) <= 1
    assert axe_violations(page) == []
    text_left, _top, _bottom = page.evaluate(BOX, "#response-text")
    form_left, form_top, _ = page.evaluate(BOX, "#sheet-form")
    if width >= 1000:
        assert text_left < form_left  # beside: the text on the left
        page.evaluate("document.querySelector('#step-3').scrollIntoView({block: 'end'})")
        _left, top, bottom = page.evaluate(BOX, "#response-text")
        assert 0 <= top < bottom <= page.viewport_size["height"] + 1  # still in view, sticky
    else:
        _left, _top, bottom = page.evaluate(BOX, "#response-text")
        assert text_left == pytest.approx(form_left, abs=2) and bottom <= form_top  # above
    context.close()


def test_a_rater_scores_the_text_by_keyboard(live_server, browser, text_sheet):
    response, first = text_sheet
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.on("dialog", lambda dialog: dialog.accept())
    login(page, live_server.url, first.username, PASSWORD)
    open_sheet(page, live_server.url, code_for(first, response))
    for key, value in (("s1.helpfulness", 6), ("s2.harmlessness", 7), ("s3.honesty", 5)):
        page.focus(f"input[name='dims.{key}'][value='1']")
        page.keyboard.press(str(value))
    page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
    page.focus("#submit-sheet")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    sheet = ScoreSheet.objects.get(assignment__rater=first, assignment__response=response)
    assert (sheet.status, sheet.overall) == ("submitted", 18)
    assert page.inner_text("#response-text").count(SINGLE_TEXT.split("\n")[0]) == 40  # read-only: the text
    page.close()


@pytest.fixture
def pair_sheet():
    source = text_study("Sleep answers")
    for number, text in (("71", LONG), ("72", "Count sheep until morning.")):
        text_response(study=source, text=text, model=ModelEndpointFactory(model_number=number))
    study = study_create(name="Sleep preferences", template="empty", task_kind="pair", pairs_from=source)
    pairs_build(study=study, actor=None)
    unit = Response.objects.get(study=study)
    first = rater("pair-rater", "H63")
    scoring_group_assigned(responses=[unit], rater_a=first, rater_b=rater("pair-other", "H64"))
    return unit, first


@pytest.mark.parametrize(("lang", "scheme", "width"), LOOKS)
def test_a_pairs_two_texts_sit_beside_the_preference_and_the_page_passes_axe(
    live_server, browser, pair_sheet, lang, scheme, width
):
    unit, first = pair_sheet
    context = browser.new_context(
        viewport={"width": width, "height": 844 if width < 800 else 768}, color_scheme=scheme
    )
    context.add_cookies([{"name": "django_language", "value": lang, "url": live_server.url}])
    page = context.new_page()
    login(page, live_server.url, first.username, PASSWORD)
    open_sheet(page, live_server.url, code_for(first, unit))
    shot(page, f"sheet-pair-{lang}-{scheme}-{width}")  # for a look by eye
    assert page.evaluate(WIDER) <= 1
    assert axe_violations(page) == []
    a_left, a_top, a_bottom = page.evaluate(BOX, "#response-text")
    b_left, b_top, _ = page.evaluate(BOX, "#response-text-2")
    form_left, form_top, _ = page.evaluate(BOX, "#sheet-form")
    assert a_left == pytest.approx(b_left, abs=2) and a_bottom <= b_top  # A above B
    if width >= 1000:
        assert a_left < form_left  # beside the preference
    else:
        assert b_top < form_top  # both above it on a phone
    context.close()

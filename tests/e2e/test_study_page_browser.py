"""Issue 26's study-page flow in Chromium: from an empty install to responses assigned to
a qualified pair through the study page alone, counting the admin's actions (files
chosen in a dialog excluded), then the pages at 390 px: the navigation folds into a menu
and nothing scrolls sideways."""

from __future__ import annotations

import json

import pytest

from scoring.models import Assignment
from studies.models import Response, Study
from tests.browser import login
from tests.factories import UserFactory, rater

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCENARIOS = (
    json.dumps({"code": "FS1", "theme": "Ocean Soup", "text": "The oceans are full of plastic."}) + "\n"
)
STEPS = [
    "1. Plastic harms fish.\n2. Nets break.",
    "Because plastic fills the ocean, how might we reduce it so that fish live?",
    "1. Sieves.\n2. Laws.",
    "1. Cost\n2. Speed\n3. Safety\n4. Scale\n5. Fairness",
    "Solution ID | Criterion 1 | Criterion 2 | Criterion 3 | Criterion 4 | Criterion 5 | Total Score\n"
    "1 | 2 | 1 | 2 | 1 | 2 | 8",
    "Best Solution ID: 1\nAction Plan: sieves.",
]
RESPONSES = "".join(
    json.dumps({"research_id": f"B{n}_FS1", "scenario": "FS1", "model": n, "condition": "B", "steps": STEPS})
    + "\n"
    for n in ("05", "07")
)


def _checks(page) -> dict[str, str]:
    return {
        li.get_attribute("data-check"): li.get_attribute("class").split()[0]
        for li in page.locator("#checklist li").element_handles()
    }


def test_from_an_empty_study_to_responses_assigned_to_a_pair(live_server, browser, settings, tmp_path):
    settings.DEMO_MODE = False
    UserFactory(username="labadmin", password="Admin-pass-2026", role="Admin")
    rater("ada", "H11")
    rater("ben", "H12")
    (tmp_path / "scenarios.jsonl").write_text(SCENARIOS, encoding="utf-8")
    (tmp_path / "responses.jsonl").write_text(RESPONSES, encoding="utf-8")
    base = live_server.url
    actions = 0

    def act(step):
        nonlocal actions
        actions += 1
        return step()

    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    login(page, base, "labadmin", "Admin-pass-2026")
    act(lambda: page.goto(f"{base}/manage/studies/"))  # the Studies link
    act(lambda: page.fill("#id_name", "Pilot"))
    act(lambda: page.check("input[name=template][value=empty]"))
    with page.expect_navigation():
        act(lambda: page.click("#study-create button[type=submit]"))
    study = Study.objects.get(name="Pilot")
    assert _checks(page) == {
        "no_scenario": "missing",
        "no_response": "missing",
        "no_released_response": "missing",
        "no_qualified_pair": "missing",
        "unassigned_responses": "missing",
    }
    # the checklist leads: its first missing item is the next step, with the page that does it
    assert page.locator("#checklist li.next-step").get_attribute("data-check") == "no_scenario"

    with page.expect_navigation():
        act(lambda: page.click("#checklist >> text=Import scenarios"))
    page.set_input_files("input[name=file]", str(tmp_path / "scenarios.jsonl"))  # a file: not counted
    with page.expect_navigation():
        act(lambda: page.click("button[type=submit].primary"))
    assert _checks(page)["no_scenario"] == "done"
    assert page.locator("#checklist li.next-step").get_attribute("data-check") == "no_response"

    with page.expect_navigation():
        act(lambda: page.click("#checklist >> text=Import responses"))
    page.set_input_files("input[name=file]", str(tmp_path / "responses.jsonl"))
    act(lambda: page.check("input[name=create_missing]"))
    with page.expect_navigation():
        act(lambda: page.click("button[type=submit].primary"))
    assert "2 new responses have no rater pair" in page.content()
    assert _checks(page)["no_response"] == "done" and _checks(page)["unassigned_responses"] == "missing"
    assert _checks(page)["no_released_response"] == "done"  # imported without parse warnings
    assert page.locator("#checklist li.next-step").get_attribute("data-check") == "no_qualified_pair"

    with page.expect_navigation():
        act(lambda: page.click("#pairs >> text=Assign rater pairs"))
    # the study is preselected; only its scenario is offered, named with the study
    assert page.locator("#id_study").input_value() == str(study.pk)
    assert page.locator("#id_scenario option").all_inner_texts()[1:] == ["FS1 Ocean Soup"]
    assert "Scenario · Pilot" in page.locator("#study-choices").inner_text()
    # its only scenario and the only condition of its responses are preselected
    assert page.locator("#id_scenario").input_value() != ""
    assert page.locator("#study-choices input[name=conditions]").is_checked()
    act(lambda: page.select_option("#id_rater_a", label="ada (H11)"))
    act(lambda: page.select_option("#id_rater_b", label="ben (H12)"))
    with page.expect_navigation():
        act(lambda: page.click("button:text('Assign the pair')"))
    with page.expect_navigation():
        act(lambda: page.click("#back-to-study"))
    assert set(_checks(page).values()) == {"done"}, _checks(page)
    assert page.locator("#checklist li.next-step").count() == 0
    assert "ada (H11) + ben (H12)" in page.inner_text("#pairs")
    live = Assignment.objects.filter(response__study=study, archived_at__isnull=True, role="primary")
    assert live.count() == 2 * Response.objects.filter(study=study).count() == 4
    assert actions <= 15, actions

    # the same pages on a phone: a menu, and no sideways scrolling
    page.set_viewport_size({"width": 390, "height": 844})
    for path in (
        f"/manage/studies/{study.pk}/",
        f"/manage/studies/{study.pk}/responses/",
        f"/manage/assignments/?study={study.pk}",
        "/manage/workload/",
        "/research/",
    ):
        page.goto(base + path)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
        assert page.locator(".mainnav").is_hidden(), path
    page.click(".navtoggle")
    assert page.locator(".mainnav").is_visible()
    context.close()

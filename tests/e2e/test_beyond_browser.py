"""Agreement beyond the study in Chromium (issue 38): the admin turns the level rule on in the
agreement settings and the study page says so; the researcher reads the scenario page's CCC and
alpha columns and the dashboard's reliability by rubric part (table and figure), the G-study and
the raters' severity, each number as the server computed it, at 1366 and 390 px, light and dark,
English and Chinese (each pair of the three once: four looks), with axe and no page wider than the
window. Screenshots under var/test-artefacts/screenshots/."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from calibration.models import ResponseAgreement
from calibration.selectors.facets import study_facets
from core.accounts.roles import ADMIN, RESEARCHER
from studies.models import Study
from tests.a11y import axe_violations
from tests.browser import login
from tests.e2e.test_accessibility_browser import STICKING_OUT, WIDER
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASS = "Beyond-pass-2026"
SHOTS = Path(settings.BASE_DIR) / "var" / "test-artefacts" / "screenshots"
# every pair of (language, scheme, width) values appears once: an orthogonal array of four looks
LOOKS = [("en", "light", 1366), ("en", "dark", 390), ("zh-hans", "dark", 1366), ("zh-hans", "light", 390)]


def _context(browser, base, lang, scheme, width):
    context = browser.new_context(viewport={"width": width, "height": 844 if width < 800 else 768},
                                  color_scheme=scheme)  # fmt: skip
    context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    return context


def _look(page, name: str) -> list[str]:
    page.wait_for_load_state("load")
    found = [f"{name}: {line}" for line in axe_violations(page)]
    if (overflow := page.evaluate(WIDER)) > 1:
        found.append(f"{name}: {overflow} px wider than the window: {page.evaluate(STICKING_OUT)}")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"beyond-{name}.png"), full_page=True)
    return found


def test_the_level_rule_is_set_in_the_browser_and_the_study_page_says_so(live_server, scored, browser):
    group, _responses = scored
    UserFactory(username="beyond-admin", role=ADMIN, password=PASS)
    base = live_server.url
    page = _context(browser, base, "en", "light", 1366).new_page()
    login(page, base, "beyond-admin", PASS)
    page.goto(f"{base}/manage/studies/{group.study_id}/agreement/")
    save = page.get_by_role("button", name="Save and re-evaluate")
    page.fill("#id_level_ccc_below", "1.5")  # out of range: the browser refuses it, nothing changes
    save.click()
    assert page.eval_on_selector("#id_level_ccc_below", "e => e.validity.rangeOverflow")
    assert Study.objects.get(pk=group.study_id).level_ccc_below is None
    page.fill("#id_level_ccc_below", "0.9")
    page.fill("#id_level_total_over", "4")
    with page.expect_navigation():
        save.click()
    study = Study.objects.get(pk=group.study_id)
    assert (float(study.level_ccc_below), float(study.level_total_over)) == (0.9, 4.0)
    page.goto(f"{base}/manage/studies/{group.study_id}/")
    rule = " ".join(page.text_content("#level-rule").split())
    assert rule == "on, beyond the study: CCC below 0.9; overall scores more than 4 points apart", rule


@pytest.mark.parametrize(("lang", "scheme", "width"), LOOKS)
def test_the_beyond_numbers_as_computed_in_every_look(live_server, scored, browser, lang, scheme, width):
    group, responses = scored
    UserFactory(username="beyond-researcher", role=RESEARCHER, password=PASS)
    facets = study_facets(study=group.study)
    base = live_server.url
    page = _context(browser, base, lang, scheme, width).new_page()
    login(page, base, "beyond-researcher", PASS)
    look = f"{lang}-{scheme}-{width}"
    problems: list[str] = []

    page.goto(f"{base}/research/agreement/{group.study_id}/scenario/{group.scenario_id}/")
    for response in responses[:3]:
        stored = ResponseAgreement.objects.get(response=response)
        row = page.locator("tr", has_text=response.research_id).first
        assert f"{stored.ccc:.3f}" in row.text_content(), response.research_id
    problems += _look(page, f"scenario-{look}")

    page.goto(f"{base}/research/agreement/?study={group.study_id}")
    shown = page.locator("#parts-reliability tbody tr")
    assert shown.count() == len(facets["parts"]) == 29
    for index, part in enumerate(facets["parts"]):
        cells = [c.strip() for c in shown.nth(index).locator("td").all_text_contents()]
        expected_alpha = "—" if part["alpha"] is None else f"{part['alpha']:.3f}"
        expected_icc = "—" if part["icc"] is None else f"{part['icc']:.3f}"
        assert (cells[0], cells[2]) == (expected_icc, expected_alpha), part["part"]
        label = shown.nth(index).locator("th").text_content().strip()
        if part["kind"] == "dimension":
            assert label == (part["label_zh"] if lang.startswith("zh") else part["label_en"])
    # the figure draws each point where its value is on the axis (-0.5 to 1, 150 units wide)
    dots = shown.locator("svg rect.forest-alpha")
    drawn = [float(x) for x in dots.evaluate_all("els => els.map(e => e.getAttribute('x'))")]
    expected = [
        (min(max(p["alpha"], -0.5), 1) + 0.5) * 100 for p in facets["parts"] if p["alpha"] is not None
    ]
    assert drawn == [pytest.approx(x, abs=0.06) for x in expected]
    harsher = facets["severity"]["raters"][0]
    assert f"{harsher['effect']:.3f}" in page.locator("#rater-severity").text_content()
    problems += _look(page, f"dashboard-{look}")
    assert not problems, "\n".join(problems)

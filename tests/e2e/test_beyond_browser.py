"""Agreement beyond the study in Chromium (issue 38): the admin turns the level rule on in the
agreement settings and the study page says so, and test-retest probes on on the training page; the researcher reads the scenario page's CCC and
alpha columns and the dashboard's reliability by rubric part (table and figure), the G-study and
the raters' severity, each number as the server computed it, at 1366 and 390 px, light and dark,
English and Chinese (each pair of the three once: four looks), with axe and no page wider than the
window. Screenshots where TEST_SHOTS names a folder (``tests.browser.shot``)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from calibration.models import ResponseAgreement
from calibration.selectors.facets import study_facets
from core.accounts.roles import ADMIN, RESEARCHER
from scoring.models import Assignment, AssignmentRole, ScoreSheet
from studies.models import Study
from tests.a11y import LOOKS, axe_violations
from tests.browser import login, shot
from tests.e2e.test_accessibility_browser import STICKING_OUT, WIDER
from tests.factories import UserFactory, reference_changes, sheet_submitted, varied_changes
from training.selectors.retest import retest_report
from training.services.retest import retest_probes_serve

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASS = "Beyond-pass-2026"


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
    shot(page, f"beyond-{name}", full_page=True)
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
            step = f"第 {part['step']} 步" if lang.startswith("zh") else f"Step {part['step']}"
            name = part["label_zh"] if lang.startswith("zh") else part["label_en"]
            assert " ".join(label.split()) == f"{step} · {name}", label
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


def test_probes_set_in_the_browser_and_their_alarm_in_every_look(live_server, scored, browser):
    """The admin turns test-retest probes on (training page); the probes served and scored, the
    drift page shows each rater's intra-rater ICC(3,1) and the alarm as the server computed them."""
    group, responses = scored
    ScoreSheet.objects.filter(assignment__response__study=group.study).update(
        submitted_at=timezone.now() - timedelta(days=21)
    )
    UserFactory(username="beyond-admin", role=ADMIN, password=PASS)
    UserFactory(username="beyond-researcher", role=RESEARCHER, password=PASS)
    base = live_server.url
    page = _context(browser, base, "en", "light", 1366).new_page()
    login(page, base, "beyond-admin", PASS)
    page.goto(f"{base}/manage/training/?study={group.study_id}")
    page.fill("#id_retest_percent", "50")
    page.fill("#id_retest_after_days", "14")
    page.fill("#id_retest_alarm_below", "0.5")
    with page.expect_navigation():
        page.locator("#retest-settings button[type=submit]").click()
    assert "Test-retest probes saved" in page.text_content(".messages")
    assert retest_probes_serve(study_id=group.study_id) == 6
    for probe in Assignment.all_objects.filter(role=AssignmentRole.RETEST):
        index = responses.index(probe.response)
        first = 3 if probe.rater_id == group.rater_a_id else 4
        shift = -index if probe.rater_id == group.rater_b_id else index  # rater B's order turned round
        sheet_submitted(probe.rater, probe.response, varied_changes(reference_changes(first), shift),
                        assignment=probe)  # fmt: skip
    report = retest_report(study=group.study)
    problems: list[str] = []
    for lang, scheme, width in LOOKS:
        page = _context(browser, base, lang, scheme, width).new_page()
        login(page, base, "beyond-researcher", PASS)
        page.goto(f"{base}/research/drift/?study={group.study_id}")
        rows = page.locator("#retest-raters tbody tr")
        assert rows.count() == len(report["raters"]) == 2
        for index, rater in enumerate(report["raters"]):
            cells = [c.strip() for c in rows.nth(index).locator("td").all_text_contents()]
            assert rows.nth(index).locator("th").text_content().strip() == rater["rater"]
            assert cells[2] == ("—" if rater["icc"] is None else f"{rater['icc']:.3f}")
            assert (rows.nth(index).locator("[data-alarm]").count() == 1) == rater["alarm"]
        problems += _look(page, f"drift-{lang}-{scheme}-{width}")
        page.context.close()
    assert not problems, "\n".join(problems)

"""Issue 39 in Chromium, as an admin uses it: the judge page shows the selector's estimates, the gate
runs from its button and the verdict shown is the one stored, and the scoring plan goes to the pair
chosen in the page's selects."""

from __future__ import annotations

import pytest
from django.test import Client

from core.accounts.roles import ADMIN
from judging.models import JudgeQualification
from judging.selectors.estimates import judge_estimates_get
from judging.selectors.planning import scoring_plan_get
from research.results import fmt
from research.significance import default_pair
from scoring.models import Assignment, AssignmentRole
from tests.factories import UserFactory, rater

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _admin_page(browser, live_server, width: int):
    client = Client()
    client.force_login(UserFactory(username=f"admin-judge-{width}", role=ADMIN))
    context = browser.new_context(viewport={"width": width, "height": 844 if width < 800 else 768})
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    return context, context.new_page()


@pytest.mark.parametrize("width", [1366, 390])
def test_an_admin_reads_the_estimates_runs_the_gate_and_assigns_the_plan(
    live_server, browser, study_judged, settings, width
):
    study, judge, _ = study_judged
    settings.JUDGE_GATE_MIN_RESPONSES = settings.JUDGE_GATE_MIN_PER_RATER = 4
    context, page = _admin_page(browser, live_server, width)
    page.goto(f"{live_server.url}/research/judge/?study={study.pk}&judge={judge.pk}")
    estimates = judge_estimates_get(study=study, judge=judge, pair_rule=default_pair)
    table = page.locator("#judge-estimates table").first
    for row, cell in zip(table.locator("tbody tr").all(), estimates.cells, strict=True):
        texts = row.locator("td").all_inner_texts()
        assert texts[1] == cell.condition and texts[6] == fmt(cell.estimate.mean, 2)
        assert texts[7] == f"[{fmt(cell.estimate.low, 2)}, {fmt(cell.estimate.high, 2)}]"
    figure = page.locator("#judge-calibration img")
    figure.scroll_into_view_if_needed()  # loaded lazily
    drawn = "img => img.complete ? img.naturalWidth : new Promise(done => img.onload = () => done(img.naturalWidth))"
    assert figure.evaluate(drawn) > 0

    page.get_by_role("button", name="Run the test now").click()
    page.wait_for_load_state("load")
    stored = JudgeQualification.objects.get(study=study, judge=judge)
    verdict = page.locator("#judge-qualification p strong").inner_text()
    assert verdict == ("Passed" if stored.passed else "Not passed")
    assert page.get_by_role("button", name=f"Let {judge.name} count as third rater").count() == int(
        stored.passed
    )

    page.get_by_role("link", name="Where should the next human scores go? Plan them").click()
    page.wait_for_load_state("load")
    plan = scoring_plan_get(study=study, judge=judge, budget=20)
    assert page.locator("#plan h2").inner_text() == f"{len(plan.response_ids)} responses chosen"
    a, b = rater(f"plan-a-{width}", f"Q{width % 100:02d}"), rater(f"plan-b-{width}", f"R{width % 100:02d}")
    page.reload()
    page.select_option("#id_rater_a", str(a.pk))
    page.select_option("#id_rater_b", str(b.pk))
    page.get_by_role("button", name="Assign the plan").click()
    page.wait_for_load_state("load")
    assert f"{2 * len(plan.response_ids)} assignments made." in page.locator(".messages").inner_text()
    given = Assignment.objects.filter(rater__in=[a, b], role=AssignmentRole.PRIMARY)
    assert sorted(set(given.values_list("response_id", flat=True))) == sorted(plan.response_ids)
    assert page.locator("#plan h2").inner_text() == "0 responses chosen"
    context.close()

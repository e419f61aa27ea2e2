"""In Chromium: an admin withdraws a held generated response on the review page, then
generates its combination again from the generation page. Without ticking "Generate
withdrawn responses again" the launch says why nothing runs; with it the batch starts and
the withdrawn response is kept as B90_FS10~W1."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from generation.models import GenerationRun
from generation.services.batches import run_cancel
from studies.models import Condition, Response, ResponseStatus, Scenario, Study
from studies.services.responses import response_create
from tests.browser import login
from tests.factories import SAMPLE_ANSWERS, stub_endpoint

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_admin_withdraws_a_response_and_generates_it_again(live_server, browser, demo):
    study = Study.objects.get(name="CGPST demo")
    study.responses_need_release = True
    study.save(update_fields=["responses_need_release"])
    endpoint = stub_endpoint(SimpleNamespace(base_url="http://127.0.0.1:9/v1"))  # nothing runs
    scenario, condition = Scenario.objects.get(code="FS10"), Condition.objects.get(letter="B")
    held = response_create(
        study=study,
        scenario=scenario,
        model=endpoint,
        condition=condition,
        answers=SAMPLE_ANSWERS,
        source="generated",
    )
    base = live_server.url
    page = browser.new_page()
    login(page, base, "admin", "demo-pass-2026")

    page.goto(f"{base}/manage/responses/held/")
    page.fill(f"#reason-{held.pk}", "truncated answer")
    with page.expect_navigation():
        page.click(f"#held-{held.pk} button:text('Withdraw')")
    assert "B90_FS10 withdrawn" in page.inner_text(".messages")
    assert Response.objects.get(pk=held.pk).status == ResponseStatus.WITHDRAWN

    page.goto(f"{base}/manage/generation/?study={study.pk}")
    for name, pk in (("scenarios", scenario.pk), ("endpoints", endpoint.pk), ("conditions", condition.pk)):
        page.check(f"input[name={name}][value='{pk}']")
    with page.expect_navigation():
        page.click("button:text('Launch')")
    assert "B90_FS10: its response was withdrawn" in page.inner_text("[role=alert]")
    assert not GenerationRun.objects.exists()

    page.check("input[name=regenerate_withdrawn]")
    with page.expect_navigation():
        page.click("button:text('Launch')")
    assert "1 run queued." in page.inner_text(".messages")
    run = GenerationRun.objects.get()
    assert f"/batches/{run.batch_id}/" in page.url and run.settings_snapshot["research_id"] == "B90_FS10"
    assert Response.objects.get(pk=held.pk).research_id == "B90_FS10~W1"
    run_cancel(run_id=run.pk)  # no worker runs it here
    page.close()

"""The batch page in a real browser while a real worker runs the batch: it reaches
"Finished" by itself (status, actions and runs are in the polled fragment) and then
stops polling."""

import time

import pytest

from generation.models import GenerationBatch
from generation.services.batches import batch_create
from generation.tasks import run_advance_send
from studies.models import Condition, Scenario, Study
from tests.browser import login
from tests.factories import stub_endpoint

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_the_batch_page_reaches_finished_by_itself_and_stops_polling(
    live_server, celery_worker, demo, llm_stub, browser
):
    llm_stub.configure(latency_ms=150)
    launched = batch_create(
        study=Study.objects.get(name="CGPST demo"),
        scenarios=[Scenario.objects.get(code="FS10")],
        endpoints=[stub_endpoint(llm_stub)],
        conditions=list(Condition.objects.filter(letter__in=["B", "C"])),
        enqueue=run_advance_send,
    )
    assert len(launched.runs) == 2
    context = browser.new_context()
    page = context.new_page()
    login(page, live_server.url, "admin")
    polls: list[str] = []
    page.on("request", lambda r: polls.append(r.url) if r.headers.get("hx-request") else None)
    page.goto(f"{live_server.url}/manage/generation/batches/{launched.batch.pk}/")
    assert page.get_attribute("#batch-live", "data-batch-status") == "running"
    assert page.is_visible("text=Cancel the batch")

    page.wait_for_selector("#batch-live[data-batch-status=finished]", timeout=120_000)
    assert "Finished" in page.text_content("h1")
    assert not page.is_visible("text=Cancel the batch")
    assert page.locator("#runs .badge", has_text="Succeeded").count() == 2
    assert GenerationBatch.objects.get(pk=launched.batch.pk).status == "finished"
    seen = len(polls)
    time.sleep(4.5)  # two polling intervals: htmx stopped on the 286
    assert len(polls) == seen
    context.close()

"""Launching a judge batch in a real browser with a real worker: the batch page follows
the progress by itself, shows the cost and stops polling when the batch is finished."""

import time

import pytest

from judging.models import JudgeBatch
from tests.browser import login

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_launch_a_batch_and_watch_it_finish(live_server, celery_worker, demo, judge, llm_stub, browser):
    llm_stub.configure(latency_ms=600)
    context = browser.new_context()
    page = context.new_page()
    login(page, live_server.url, "admin")
    page.goto(f"{live_server.url}/manage/judges/")
    assert page.is_visible("text=stub judge")
    page.select_option("#id_batch-judge", str(judge.pk))
    page.select_option("#id_batch-study", str(demo.study.pk))
    page.fill("#id_batch-samples", "2")
    polls: list[str] = []
    page.on("request", lambda r: polls.append(r.url) if r.headers.get("hx-request") else None)
    page.click("#launch-form button[type=submit]")
    page.wait_for_url("**/manage/judges/batches/*/")
    assert page.get_attribute("#batch-live", "data-batch-status") == "running"
    assert page.is_visible("text=Cancel the batch")

    page.wait_for_selector("#batch-live[data-batch-status=finished]", timeout=120_000)
    assert page.text_content("#count-succeeded") == "1" and page.text_content("#count-failed") == "0"
    assert "2 provider calls" in page.text_content("#batch-cost")
    assert not page.is_visible("text=Cancel the batch")
    batch = JudgeBatch.objects.get()
    assert batch.samples == 2 and batch.status == "finished"
    seen = len(polls)
    assert seen >= 1  # the page polled while the batch ran
    time.sleep(4.5)  # two polling intervals: htmx stopped on the 286
    assert len(polls) == seen
    context.close()

"""Outages as the admin sees them in Chromium (issue 37): a run paused by an outage of Redis
says until when it waits, and a batch whose workers are all gone says when its runs fail; the
times on the page are the ones the server computed, in both languages, at desktop and phone
widths, with no accessibility violation."""

from __future__ import annotations

from datetime import timedelta

import pytest
import redis.exceptions
from django.utils import timezone

from core.outages import outage_reason
from generation.models import GenerationRun
from generation.selectors import job_orphan_deadline
from generation.services.batches import batch_create
from generation.services.engine import job_pause
from generation.services.kinds import kind_get
from studies.models import Condition, Scenario, Study
from tests.a11y import axe_violations
from tests.browser import login, shot
from tests.factories import stub_endpoint

pytestmark = [pytest.mark.browser, pytest.mark.fault, pytest.mark.django_db(transaction=True)]


def _batch(llm_stub):
    return batch_create(
        study=Study.objects.get(name="CGPST demo"),
        scenarios=[Scenario.objects.get(code="FS10")],
        endpoints=[stub_endpoint(llm_stub)],
        conditions=[Condition.objects.get(letter="B"), Condition.objects.get(letter="C")],
        enqueue=lambda **kwargs: None,  # no worker takes them in this test
    )


@pytest.mark.parametrize("language, width", [("en", 1366), ("zh-hans", 390)])
def test_paused_and_orphaned_runs_say_until_when_they_wait(
    live_server, demo, llm_stub, browser, settings, language, width
):
    settings.CELERY_TASK_DEFAULT_QUEUE = "banner-test-queue"  # no worker beats for it: all gone
    settings.ENGINE_START_SECONDS = 1
    launch = _batch(llm_stub)
    batch = launch.batch
    paused_run, stuck_run = sorted(launch.runs, key=lambda run: run.pk)
    reason = outage_reason(redis.exceptions.ConnectionError("Error 111 connecting to redis:6379."))
    job_pause(kind=kind_get("generation"), job_id=paused_run.pk, reason=reason)
    # both stuck (no task took them up), the paused one later: the banner's deadline is the other's
    GenerationRun.objects.filter(pk=stuck_run.pk).update(dispatched_at=timezone.now() - timedelta(seconds=30))
    GenerationRun.objects.filter(pk=paused_run.pk).update(
        dispatched_at=timezone.now() - timedelta(seconds=20)
    )
    paused_run.refresh_from_db()
    stuck_run.refresh_from_db()

    context = browser.new_context(viewport={"width": width, "height": 900}, locale=language)
    page = context.new_page()
    login(page, live_server.url, "admin")
    page.goto(f"{live_server.url}/manage/generation/batches/{batch.pk}/")

    local = timezone.localtime
    until = local(paused_run.waiting_until)
    deadline = local(job_orphan_deadline(stuck_run))
    paused = page.text_content("#batch-paused")
    orphaned = page.text_content("#batch-orphaned")
    assert until.strftime("%Y-%m-%d %H:%M") in paused and "Redis is unreachable" in paused
    assert deadline.strftime("%Y-%m-%d %H:%M") in orphaned
    row = page.locator("#runs tbody tr").first.text_content()
    assert until.strftime("%H:%M") in row
    if language == "en":
        assert "1 run is paused by an outage" in paused and "No worker is working: 2 runs wait" in orphaned
    else:
        assert "因服务中断而暂停" in paused and "没有工作进程在运行" in orphaned
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert axe_violations(page) == []
    shot(page, f"outage-banners-{language}-{width}", full_page=True)
    context.close()

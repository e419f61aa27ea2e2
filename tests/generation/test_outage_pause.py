"""A job an outage stopped pauses with a deadline the admin sees; past it, it fails with
the reason, and a retry clears the wait (issue 37: infrastructure errors are waits)."""

from datetime import timedelta

import pytest
import redis.exceptions
from django.utils import timezone

from core.outages import outage_reason
from generation.models import GenerationRun, RunStatus
from generation.services.batches import batch_create
from generation.services.engine import job_pause, job_resume
from generation.services.kinds import kind_get
from studies.models import Condition, Scenario, Study
from teamllm_web.health import status_report, stuck_runs
from tests.factories import stub_endpoint

pytestmark = pytest.mark.fault
REASON = outage_reason(redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379."))


@pytest.fixture
def run(db, demo, llm_stub):
    return batch_create(
        study=Study.objects.get(name="CGPST demo"),
        scenarios=[Scenario.objects.get(code="FS10")],
        endpoints=[stub_endpoint(llm_stub)],
        conditions=[Condition.objects.get(letter="B")],
        enqueue=lambda **kwargs: None,
    ).runs[0]


def test_a_pause_keeps_its_first_deadline_and_fails_past_it(run, settings):
    settings.ENGINE_OUTAGE_WAIT_SECONDS = 600
    kind = kind_get("generation")
    first = job_pause(kind=kind, job_id=run.pk, reason=REASON)
    assert first.kind == "paused" and 2 <= first.countdown <= 30
    run.refresh_from_db()
    assert run.status == RunStatus.QUEUED and run.waiting_for.startswith(
        "Redis is unreachable (ConnectionError"
    )
    deadline = run.waiting_until
    assert timedelta(seconds=590) < deadline - timezone.now() <= timedelta(seconds=600)

    assert job_pause(kind=kind, job_id=run.pk, reason=REASON).kind == "paused"
    run.refresh_from_db()
    assert run.waiting_until == deadline  # a later pause of the same wait keeps the deadline
    stalled = stuck_runs()
    assert stalled["paused_by_outage"] == 1 and stalled["ok"] is False  # /status/ counts it
    assert "stuck_runs" in status_report()[1]["problems"] and status_report()[0] is False  # not ready

    GenerationRun.objects.filter(pk=run.pk).update(waiting_until=timezone.now() - timedelta(seconds=1))
    assert job_pause(kind=kind, job_id=run.pk, reason=REASON).kind == "failed"
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.error == f"Stopped after waiting 600 s: {REASON}."

    assert job_resume(kind=kind, job_id=run.pk, enqueue=lambda **kwargs: None, retry=True)
    run.refresh_from_db()
    assert run.status == RunStatus.QUEUED and run.waiting_for == "" and run.waiting_until is None


def test_a_pause_of_an_ended_job_changes_nothing(run):
    GenerationRun.objects.filter(pk=run.pk).update(status=RunStatus.CANCELLED)
    assert job_pause(kind=kind_get("generation"), job_id=run.pk, reason=REASON).kind == "inactive"
    run.refresh_from_db()
    assert run.waiting_for == "" and run.status == RunStatus.CANCELLED

"""``run_step`` in-process (no worker): the guards that make tasks idempotent, and
failures that end a run visibly instead of leaving it hanging."""

import pytest

from core.llm import leases
from generation.models import GenerationRun, RunStatus, Turn
from generation.services.batches import batch_create
from generation.services.runs import run_step
from generation.tasks import run_advance_send
from studies.models import Condition, Response, Scenario, Study
from tests.factories import stub_endpoint


@pytest.fixture
def run(demo, llm_stub, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):  # no worker here: nothing is enqueued
        return batch_create(
            study=Study.objects.get(name="CGPST demo"),
            scenarios=[Scenario.objects.get(code="FS10")],
            endpoints=[stub_endpoint(llm_stub)],
            conditions=[Condition.objects.get(letter="B")],
            enqueue=run_advance_send,
        ).runs[0]


def test_steps_in_order_then_finish_once(run, llm_stub):
    outcome = run_step(run_id=run.pk, seq=0)
    assert outcome.kind == "advanced" and outcome.next_seq == 1
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING and run.calls_done == 1 and run.attempts == 1
    assert run.heartbeat_at is not None  # handed off: set until the next task takes over
    assert run.current_step == 2 and run.current_phase == "answer · Individual"
    assert run_step(run_id=run.pk, seq=0).kind == "stale"  # a redelivered message
    assert run_step(run_id=run.pk, seq=3).kind == "stale"  # a message from the future
    assert llm_stub.stats.requests == 1
    for seq in range(1, 6):
        assert run_step(run_id=run.pk, seq=seq).kind == "advanced"
    assert run_step(run_id=run.pk, seq=6).kind == "finished"
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED and run.heartbeat_at is None
    assert run.response.answers == [t.reply for t in run.turns.order_by("seq")]
    assert run_step(run_id=run.pk, seq=6).kind == "inactive"
    assert Response.objects.filter(research_id="B90_FS10").count() == 1
    assert llm_stub.stats.requests == 6


def test_a_run_held_by_another_task_is_left_alone(run, llm_stub, monkeypatch):
    monkeypatch.setattr("generation.services.runs.RUN_LOCK_WAIT_SECONDS", 0.2)
    lease = leases.acquire(leases.run_key(run.pk), 1, wait=0)
    try:
        assert run_step(run_id=run.pk, seq=0).kind == "busy"
    finally:
        leases.release(lease)
    assert llm_stub.stats.requests == 0 and not Turn.objects.exists()


def test_a_cancelled_run_makes_no_call(run, llm_stub):
    GenerationRun.objects.filter(pk=run.pk).update(status=RunStatus.CANCELLED)
    assert run_step(run_id=run.pk, seq=0).kind == "inactive"
    assert llm_stub.stats.requests == 0


def test_an_internal_error_fails_the_run_with_its_message(run):
    snapshot = dict(run.settings_snapshot, params={"language": "zh"})  # no temperature: a bug
    GenerationRun.objects.filter(pk=run.pk).update(settings_snapshot=snapshot)
    assert run_step(run_id=run.pk, seq=0).kind == "failed"
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and run.error.startswith("Internal error at call 0: KeyError")
    assert run.heartbeat_at is None
    run.batch.refresh_from_db()
    assert run.batch.status == "finished"

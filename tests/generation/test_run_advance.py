"""Whole runs through a real Celery worker and the stub over real HTTP."""

import pytest

from generation.models import GenerationRun, RunStatus, Turn
from generation.services.batches import batch_create
from generation.services.runs import run_finish, run_step
from generation.tasks import run_advance_send
from studies.models import Condition, Response, Scenario, Study
from tests.factories import stub_endpoint
from tests.workers import wait_for

pytestmark = pytest.mark.worker


def launch(letter, stub, **endpoint_overrides):
    study = Study.objects.get(name="CGPST demo")
    return batch_create(
        study=study,
        scenarios=[Scenario.objects.get(code="FS10")],
        endpoints=[stub_endpoint(stub, **endpoint_overrides)],
        conditions=[Condition.objects.get(letter=letter)],
        enqueue=run_advance_send,
    )


def finished(run):
    def check():
        run.refresh_from_db()
        return run.status not in (RunStatus.QUEUED, RunStatus.RUNNING)

    return check


def test_a_teamllm_run_gives_a_response_with_six_answers_from_34_turns(celery_worker, demo, llm_stub):
    launched = launch("A", llm_stub)
    run = launched.runs[0]
    assert run.calls_total == 34
    wait_for(finished(run), worker=celery_worker)
    assert run.status == RunStatus.SUCCEEDED, run.error
    turns = list(Turn.objects.filter(run=run).order_by("seq"))
    assert [t.seq for t in turns] == list(range(34))
    assert all(t.reply and not t.error and t.attempts == 1 for t in turns)
    assert run.calls_done == 34 and run.prompt_tokens == sum(t.prompt_tokens for t in turns)
    response = run.response
    assert response.research_id == "A90_FS10" and response.source == "generated"
    consensus = [t.reply for t in turns if t.phase == "consensus"]
    assert response.answers == consensus
    assert all(response.answers)
    assert response.items.filter(step=1).count() == 8 and response.items.filter(step=3).count() == 8
    assert response.items.filter(step=4).count() == 5
    assert response.grid_errors == [] and response.step3_blank_items == 0
    assert len(response.blind_code) == 10
    # the exact messages were stored: the step-1 consensus quotes this step's transcript
    consensus1 = next(t for t in turns if t.step == 1 and t.phase == "consensus")
    assert f"Plant says: {turns[5].reply}" in consensus1.messages[-1]["content"]
    assert llm_stub.stats.as_dict()["repeated_prompts"] == 0  # no call was made twice
    run.batch.refresh_from_db()
    assert run.batch.status == "finished"

    # a redelivered last task or finish changes nothing
    assert run_step(run_id=run.pk, seq=34).kind == "inactive"
    assert run_finish(run_id=run.pk, answers=["x"] * 6) == response
    assert Response.objects.filter(research_id="A90_FS10").count() == 1
    assert Turn.objects.filter(run=run).count() == 34


def test_a_single_run_has_six_turns(celery_worker, demo, llm_stub):
    run = launch("B", llm_stub).runs[0]
    wait_for(finished(run), worker=celery_worker)
    assert run.status == RunStatus.SUCCEEDED, run.error
    assert run.turns.count() == 6 and run.response.research_id == "B90_FS10"
    assert [t.request_params["temperature"] for t in run.turns.order_by("seq")] == [0.6] * 6


def test_a_429_storm_is_ridden_out(celery_worker, demo, llm_stub):
    llm_stub.configure(fail_first=2, faults=["429"], retry_after=0.05)
    run = launch("B", llm_stub).runs[0]
    wait_for(finished(run), worker=celery_worker)
    assert run.status == RunStatus.SUCCEEDED, run.error
    assert [t.attempts for t in run.turns.order_by("seq")] == [3] * 6
    assert llm_stub.stats.faults["429"] == 12


def test_a_dead_provider_fails_the_run_clearly_and_a_retry_resumes_it(celery_worker, demo, llm_stub):
    from generation.services.batches import run_retry

    llm_stub.configure(fail_after=3)
    run = launch("B", llm_stub).runs[0]
    wait_for(finished(run), worker=celery_worker)
    assert run.status == RunStatus.FAILED
    assert "Call 3 (step 4, answer, Individual): The provider call failed after 4 attempts" in run.error
    assert "HTTP 500" in run.error
    done = {t.seq: (t.pk, t.created_at) for t in run.turns.filter(error="")}
    assert sorted(done) == [0, 1, 2]
    failed = run.turns.get(seq=3)
    assert failed.error and failed.attempts == 4 and failed.reply == ""
    assert run.batch.runs.get().response is None

    llm_stub.reset()  # the provider is back
    # the retry skips a row the worker still holds locked while it ends its last task (a CI run under
    # load pressed it in that instant): pressed again a moment later, as a person would
    wait_for(lambda: run_retry(run_id=run.pk, enqueue=run_advance_send), timeout=10, worker=celery_worker)
    wait_for(finished(run), worker=celery_worker)
    assert run.status == RunStatus.SUCCEEDED, run.error
    turns = list(run.turns.order_by("seq"))
    assert [t.seq for t in turns] == list(range(6)) and all(not t.error for t in turns)
    assert {t.seq: (t.pk, t.created_at) for t in turns if t.seq < 3} == done  # not repeated
    assert llm_stub.stats.requests == 3  # only the missing calls were sent again
    assert turns[3].attempts == 4 + 1
    assert run.attempts == 2 and run.error == ""


def test_the_endpoint_limit_holds_across_workers(celery_worker, demo, llm_stub):
    from tests.workers import WorkerProcess

    llm_stub.configure(latency_ms=150)
    second = WorkerProcess(concurrency=4).start()
    try:
        study = Study.objects.get(name="CGPST demo")
        scenarios = [
            Scenario.objects.create(study=study, code=f"LIM{i}", theme="t", text="x") for i in range(6)
        ]
        launched = batch_create(
            study=study,
            scenarios=scenarios,
            endpoints=[stub_endpoint(llm_stub, concurrency_limit=2)],
            conditions=[Condition.objects.get(letter="B")],
            enqueue=run_advance_send,
        )
        wait_for(
            lambda: (
                not GenerationRun.objects.filter(
                    batch=launched.batch, status__in=["queued", "running"]
                ).exists()
            ),
            worker=celery_worker,
        )
    finally:
        second.stop()
    assert set(launched.batch.runs.values_list("status", flat=True)) == {"succeeded"}
    assert llm_stub.stats.max_in_flight == 2  # 8 worker threads, 6 runs, at most 2 calls at once

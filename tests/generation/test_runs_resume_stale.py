"""A worker SIGKILLed in the middle of a run: a new worker resumes it, and the run
completes with no turn lost, repeated or duplicated."""

import hashlib
import json
import time

import pytest

from generation.models import RunStatus, Turn
from generation.services.batches import batch_create
from generation.services.runs import runs_resume_stale
from generation.tasks import run_advance_send
from studies.models import Condition, Scenario, Study
from tests.factories import stub_endpoint
from tests.generation.test_run_advance import finished
from tests.workers import wait_for

pytestmark = [pytest.mark.worker, pytest.mark.fault]


def prompt_key(messages):
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()


def test_a_killed_worker_s_run_is_resumed_by_the_next_worker(celery_worker, demo, llm_stub):
    llm_stub.configure(latency_ms=250)
    run = batch_create(
        study=Study.objects.get(name="CGPST demo"),
        scenarios=[Scenario.objects.get(code="FS10")],
        endpoints=[stub_endpoint(llm_stub)],
        conditions=[Condition.objects.get(letter="A")],
        enqueue=run_advance_send,
    ).runs[0]
    wait_for(lambda: Turn.objects.filter(run=run).count() >= 6, worker=celery_worker)
    wait_for(lambda: llm_stub.stats.in_flight == 1, worker=celery_worker)
    celery_worker.kill()  # in the middle of a provider call
    before = {t.seq: (t.pk, t.created_at, t.reply) for t in Turn.objects.filter(run=run)}
    run.refresh_from_db()
    assert run.status == RunStatus.RUNNING and len(before) < 34

    time.sleep(1)
    # the dead worker's heartbeat is not stale yet: nothing to resume
    assert runs_resume_stale(enqueue=run_advance_send) == []
    celery_worker.start()  # its sweeper finds the run once the heartbeat is stale
    wait_for(finished(run), timeout=120, worker=celery_worker)
    assert run.status == RunStatus.SUCCEEDED, run.error

    turns = list(Turn.objects.filter(run=run).order_by("seq"))
    assert [t.seq for t in turns] == list(range(34))  # none lost, none duplicated
    assert {
        t.seq: (t.pk, t.created_at, t.reply) for t in turns if t.seq in before
    } == before  # kept as they were
    # no completed call was sent again (only the one in flight when the worker died may have been)
    counts = llm_stub.stats.per_prompt
    assert all(counts[prompt_key(t.messages)] == 1 for t in turns if t.seq in before)
    assert sum(1 for t in turns if counts[prompt_key(t.messages)] > 1) <= 1
    assert run.attempts == 2
    assert run.response.answers == [t.reply for t in turns if t.phase == "consensus"]

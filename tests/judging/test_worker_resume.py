"""A worker SIGKILLed in the middle of a judge task: the next worker resumes it and no
finished call is made again."""

import time

import pytest

from judging.models import JudgeCall, JudgeTaskStatus
from judging.services.runs import judge_batch_launch, judge_tasks_resume_stale
from tests.workers import wait_for

pytestmark = [pytest.mark.worker, pytest.mark.fault]


def test_a_killed_worker_s_judge_task_resumes_without_repeating_calls(celery_worker, study, judge, llm_stub):
    llm_stub.configure(latency_ms=400)
    batch = judge_batch_launch(study=study, judge=judge, samples=3)
    task = batch.tasks.get()
    wait_for(lambda: JudgeCall.objects.filter(task=task).count() >= 1, worker=celery_worker)
    wait_for(lambda: llm_stub.stats.in_flight == 1, worker=celery_worker)
    celery_worker.kill()  # in the middle of a provider call
    before = {
        (c.sample, c.attempt): (c.pk, c.created_at, c.raw_output) for c in JudgeCall.objects.filter(task=task)
    }
    task.refresh_from_db()
    assert task.status == JudgeTaskStatus.RUNNING and 1 <= len(before) < 3

    time.sleep(1)
    assert judge_tasks_resume_stale() == []  # the heartbeat is not stale yet
    celery_worker.start()  # its sweep finds the task once the heartbeat is stale
    wait_for(
        lambda: (
            JudgeCall.objects.filter(task=task).count() == 3
            and task.__class__.objects.get(pk=task.pk).status != JudgeTaskStatus.RUNNING
        ),
        timeout=120,
        worker=celery_worker,
    )
    task.refresh_from_db()
    assert task.status == JudgeTaskStatus.SUCCEEDED, task.error
    assert task.attempts == 2 and task.sheet is not None
    calls = {
        (c.sample, c.attempt): (c.pk, c.created_at, c.raw_output) for c in JudgeCall.objects.filter(task=task)
    }
    assert sorted(calls) == [(1, 1), (2, 1), (3, 1)]
    assert {k: v for k, v in calls.items() if k in before} == before  # kept as they were
    # 3 calls stored; at most the one in flight when the worker died was sent twice
    assert llm_stub.stats.requests <= 4

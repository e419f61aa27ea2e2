"""Runs that cannot hang: a generation run whose task never reached the broker and a
judge task whose message the broker lost are counted as stuck on /status/, then found
by a real worker's periodic sweep, resumed (with the reason recorded) and finished,
with no person pressing "Resume"; their cost counts the time workers spent on them,
not the wait for the lost task."""

import time

import pytest
from django.conf import settings as django_settings

from generation.models import GenerationRun, RunStatus
from generation.services.batches import batch_create
from judging.models import JudgeTask
from judging.services.judges import judge_create
from judging.services.runs import judge_batch_launch
from studies.models import Condition, Scenario, Study
from teamllm_web.health import stuck_runs
from tests.factories import stub_endpoint
from tests.workers import WorkerProcess, session_worker_stop, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.fault]

START_SECONDS = 2


def _lost(**kwargs) -> None:
    """An enqueue whose message never reaches the broker."""


def _purge_queue() -> None:
    """The broker loses every message it holds (a Redis restarted without its data)."""
    from teamllm_web.celery import app

    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(django_settings.CELERY_TASK_DEFAULT_QUEUE)


def _ended(model, pk):
    return lambda: model.objects.get(pk=pk).status not in (RunStatus.QUEUED, RunStatus.RUNNING)


@pytest.mark.skipif(not django_settings.REDIS_URL, reason="a real worker on Redis")
def test_lost_tasks_are_resumed_by_the_sweeper_without_a_person(transactional_db, demo, llm_stub, settings):
    session_worker_stop()  # only the worker below runs, with a short start deadline
    study = Study.objects.get(name="CGPST demo")
    endpoint = stub_endpoint(llm_stub)
    run = batch_create(
        study=study,
        scenarios=[Scenario.objects.get(code="FS10")],
        endpoints=[endpoint],
        conditions=[Condition.objects.get(letter="B")],
        enqueue=_lost,
    ).runs[0]
    judge = judge_create(name="lost judge", endpoint=endpoint, provider_family="stub")
    task = judge_batch_launch(study=study, judge=judge).tasks.get()  # sent to the broker on commit
    _purge_queue()

    settings.ENGINE_START_SECONDS = START_SECONDS
    assert stuck_runs()["no_first_heartbeat"] == 0  # queued just now: not stuck yet
    time.sleep(START_SECONDS + 0.5)
    report = stuck_runs()
    assert report["ok"] is False and report["no_first_heartbeat"] == 2
    assert report["run_ids"] == [run.pk] and report["judge_task_ids"] == [task.pk]

    worker = WorkerProcess(extra_env={"ENGINE_START_SECONDS": str(START_SECONDS)})
    try:
        worker.start()
        wait_for(_ended(GenerationRun, run.pk), timeout=90, worker=worker)
        wait_for(_ended(JudgeTask, task.pk), timeout=90, worker=worker)
    finally:
        worker.stop()

    run.refresh_from_db()
    task.refresh_from_db()
    for job in (run, task):
        assert job.status == RunStatus.SUCCEEDED, job.error
        # at least once; on a loaded machine the 2 s start deadline can pass again before the
        # re-sent task is taken up: the second resume is harmless (a done call is not redone) and
        # the note keeps the first reason before the newest
        assert job.recoveries >= 1 and "its task was lost" in job.recovery_note
        waited = (job.finished_at - job.created_at).total_seconds()
        assert 0 < job.active_seconds < waited - START_SECONDS  # the wait is not counted
    assert run.response is not None and task.sheet is not None
    assert stuck_runs()["ok"] is True

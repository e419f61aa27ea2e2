"""Cancelling a run or a batch stops it; a retry resumes from the last completed turn."""

import time

import pytest

from generation.models import RunStatus, Turn
from generation.services.batches import batch_cancel, run_cancel, run_retry
from generation.tasks import run_advance_send
from tests.generation.test_run_advance import finished, launch
from tests.workers import wait_for

pytestmark = pytest.mark.worker


def test_a_cancelled_run_stops_and_a_retry_completes_it(celery_worker, demo, llm_stub):
    llm_stub.configure(latency_ms=200)
    run = launch("B", llm_stub).runs[0]
    wait_for(lambda: Turn.objects.filter(run=run).count() >= 2, worker=celery_worker)
    assert run_cancel(run_id=run.pk)
    time.sleep(1.0)  # a call in flight completes and is kept; no further call starts
    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED and run.finished_at
    kept = Turn.objects.filter(run=run).count()
    assert 2 <= kept <= 3
    time.sleep(0.6)
    assert Turn.objects.filter(run=run).count() == kept
    run.batch.refresh_from_db()
    assert run.batch.status == "finished"
    assert not run_cancel(run_id=run.pk)  # already ended

    llm_stub.configure(latency_ms=0)
    assert run_retry(run_id=run.pk, enqueue=run_advance_send)
    wait_for(finished(run), worker=celery_worker)
    assert run.status == RunStatus.SUCCEEDED
    assert [t.seq for t in run.turns.order_by("seq")] == list(range(6))
    assert llm_stub.stats.completions <= 6 + 1
    run.batch.refresh_from_db()
    assert run.batch.status == "finished"
    assert not run_retry(run_id=run.pk, enqueue=run_advance_send)  # a succeeded run is left alone


def test_cancelling_a_batch_cancels_its_active_runs(celery_worker, demo, llm_stub):
    llm_stub.configure(latency_ms=200)
    run = launch("A", llm_stub).runs[0]
    wait_for(lambda: Turn.objects.filter(run=run).exists(), worker=celery_worker)
    assert batch_cancel(batch_id=run.batch_id) == 1
    run.refresh_from_db()
    run.batch.refresh_from_db()
    assert run.status == RunStatus.CANCELLED and run.batch.status == "cancelled"
    time.sleep(0.8)
    assert Turn.objects.filter(run=run).count() <= 2

"""The fault suite's worker and provider faults (issue 37), with a real worker over real HTTP,
on PostgreSQL and Redis and again on the embedded default (SQLite, filesystem broker):

- every worker gone past the deadline: the runs fail with the reason on the batch page, in
  /status/ and in the metrics; the first worker back resumes them, nothing lost or repeated;
- a worker frozen mid-call (SIGSTOP): its frozen time is not counted as work;
- the provider answering 5xx for 60 s: every run waits it out and finishes, each call once.

The web tier answers throughout."""

import hashlib
import json
import time

import pytest
from django.test import Client

from generation.models import GenerationRun, RunStatus, Turn
from generation.services.batches import batch_create
from generation.services.recovery import NO_WORKER, jobs_fail_orphaned
from generation.tasks import run_advance_send
from studies.models import Condition, Scenario, Study
from teamllm_web.metrics import metrics_exposition
from tests.factories import stub_endpoint
from tests.workers import WorkerProcess, session_worker_stop, wait_for

pytestmark = [pytest.mark.worker, pytest.mark.fault]
STATUS_TOKEN = "fault-suite-status-token"


def _launch(llm_stub, *letters, **endpoint):
    return batch_create(
        study=Study.objects.get(name="CGPST demo"),
        scenarios=[Scenario.objects.get(code="FS10")],
        endpoints=[stub_endpoint(llm_stub, **endpoint)],
        conditions=[Condition.objects.get(letter=letter) for letter in letters],
        enqueue=run_advance_send,
    )


def _ended(runs):
    def check():
        return not GenerationRun.objects.filter(
            pk__in=[r.pk for r in runs], status__in=[RunStatus.QUEUED, RunStatus.RUNNING]
        ).exists()

    return check


def _resumed_and_ended(run):
    def check():
        run.refresh_from_db()
        return run.status == RunStatus.SUCCEEDED or (
            run.status == RunStatus.FAILED and run.waiting_for != NO_WORKER
        )

    return check


@pytest.fixture
def deployed_retries_worker(transactional_db):
    """A worker that retries a provider as deployed (base.py's defaults: attempts bounded by
    the 600 s budget alone, backoff from 1 s doubling to 60 s), not as the suite's fast tests do;
    the session's worker is stopped meanwhile (``celery_worker`` starts it again)."""
    session_worker_stop()
    worker = WorkerProcess(
        extra_env={"LLM_MAX_ATTEMPTS": "0", "LLM_BACKOFF_BASE_SECONDS": "1", "LLM_BACKOFF_MAX_SECONDS": "60"}
    ).start()
    try:
        yield worker
    finally:
        worker.stop()


def _prompt_key(messages):
    return hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()


def _each_call_stored_once(run, llm_stub):
    turns = list(Turn.objects.filter(run=run).order_by("seq"))
    assert [t.seq for t in turns] == list(range(len(turns)))
    assert len(turns) == run.calls_total
    return turns


def _admin():
    client = Client(raise_request_exception=False)
    client.login(username="admin", password="demo-pass-2026")
    return client


def test_every_worker_gone_past_the_deadline_fails_visibly_and_a_worker_back_resumes(
    celery_worker, demo, llm_stub, settings
):
    # the web side's clocks, short: a worker's beat is fresh 3 s, a heartbeat stale after 2 s,
    # a stuck run fails 6 s after its last sign of life
    settings.WORKER_BEAT_SECONDS = 1
    settings.GENERATION_STALE_SECONDS = 2
    settings.ENGINE_ORPHAN_SECONDS = 6
    settings.STATUS_TOKEN = STATUS_TOKEN
    llm_stub.configure(latency_ms=250)
    run = _launch(llm_stub, "A").runs[0]
    admin = _admin()
    wait_for(lambda: Turn.objects.filter(run=run).count() >= 4, worker=celery_worker)
    wait_for(lambda: llm_stub.stats.in_flight == 1, worker=celery_worker)
    celery_worker.kill()  # and no other worker: every worker is gone
    before = {t.seq: (t.pk, t.reply) for t in Turn.objects.filter(run=run)}
    batch_page = f"/manage/generation/batches/{run.batch_id}/"

    # the web processes' periodic job (teamllm_web.wsgi) runs jobs_fail_orphaned; here, by hand
    wait_for(lambda: 'id="batch-orphaned"' in admin.get(batch_page).content.decode(), timeout=30)
    page = admin.get(batch_page).content.decode()
    assert "No worker is working: 1 run waits for one." in page and "it fails at" in page
    status = admin.get("/status/", HTTP_AUTHORIZATION=f"Bearer {STATUS_TOKEN}")
    assert status.status_code == 503 and "workers" in status.json()["problems"]
    assert admin.get("/healthz").status_code == 200  # the web tier answers throughout

    wait_for(lambda: bool(jobs_fail_orphaned(queue=settings.CELERY_TASK_DEFAULT_QUEUE)), timeout=30)
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and run.waiting_for == NO_WORKER
    page = admin.get(batch_page).content.decode()
    assert "No worker worked on it for 6 s: every worker is gone." in page
    assert (
        admin.get("/status/", HTTP_AUTHORIZATION=f"Bearer {STATUS_TOKEN}").json()["stuck_runs"][
            "failed_no_worker"
        ]
        == 1
    )
    assert 'teamllm_engine_jobs_waiting{kind="generation",reason="no_worker"} 1.0' in (
        metrics_exposition().decode()
    )

    celery_worker.start()  # a worker is back: its sweep resumes the run from its last call
    wait_for(_resumed_and_ended(run), timeout=120, worker=celery_worker)
    assert run.status == RunStatus.SUCCEEDED, run.error
    assert "every worker had been gone" in run.recovery_note
    turns = _each_call_stored_once(run, llm_stub)
    assert {t.seq: (t.pk, t.reply) for t in turns if t.seq in before} == before  # kept as they were
    counts = llm_stub.stats.per_prompt
    assert all(counts[_prompt_key(t.messages)] == 1 for t in turns if t.seq in before)
    assert "every worker is gone" not in admin.get(batch_page).content.decode()


def test_a_worker_frozen_mid_call_counts_no_frozen_time_as_work(celery_worker, demo, llm_stub):
    llm_stub.configure(latency_ms=400)
    run = _launch(llm_stub, "B").runs[0]
    wait_for(lambda: llm_stub.stats.in_flight == 1, worker=celery_worker)
    # logged in before the freeze: on SQLite a worker frozen inside a write (its heartbeat's) holds
    # the one write lock, and the login's writes would wait on it; the web's answer is what counts
    admin = _admin()
    celery_worker.pause()
    try:
        assert admin.get("/healthz").status_code == 200
        time.sleep(8)
    finally:
        celery_worker.resume()
    wait_for(_ended([run]), timeout=120, worker=celery_worker)
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED, run.error
    wall = (run.finished_at - run.started_at).total_seconds()
    assert wall >= 8
    assert run.active_seconds <= wall - 5, (run.active_seconds, wall)  # the 8 s frozen are not work
    # the calls' own time is work (the frozen call's 0.4 s ran partly while the worker was frozen)
    assert run.active_seconds >= 0.4 * (run.calls_total - 1)


def test_a_provider_down_60_s_is_waited_out_and_every_run_finishes(deployed_retries_worker, demo, llm_stub):
    worker = deployed_retries_worker
    llm_stub.configure(latency_ms=50)
    # A call the client gave up on may still have been answered; the generous timeout keeps a
    # starved CI machine from being taken for that, so every answer counted must be stored.
    launched = _launch(llm_stub, "B", "C", timeout_seconds=30.0)
    runs = launched.runs
    wait_for(lambda: llm_stub.stats.completions >= 3, worker=worker)
    llm_stub.configure(fail_after=0)  # from now on every request answers 500: the provider is down
    down_at = time.monotonic()
    admin = _admin()
    while time.monotonic() - down_at < 60:
        assert admin.get("/healthz").status_code == 200
        assert not GenerationRun.objects.filter(pk__in=[r.pk for r in runs], status=RunStatus.FAILED).exists()
        time.sleep(5)
    assert llm_stub.stats.faults["500"] >= 2 * len(runs)  # the calls were tried again meanwhile
    llm_stub.configure(fail_after=None)  # back
    wait_for(_ended(runs), timeout=180, worker=worker)
    wait_for(lambda: llm_stub.stats.in_flight == 0, timeout=10)  # its count follows its last write
    completions = llm_stub.stats.completions
    for run in runs:
        run.refresh_from_db()
        assert run.status == RunStatus.SUCCEEDED, run.error
        _each_call_stored_once(run, llm_stub)
    assert completions == Turn.objects.filter(run__in=runs).count()  # each call answered once, stored once
    assert all(run.error == "" for run in runs)

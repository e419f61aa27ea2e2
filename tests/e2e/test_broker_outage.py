"""A real broker killed and restarted: nothing is lost while it is down.

The test runs its own ``redis-server`` (the machine's Redis on 6379 is shared with
other sessions and is never stopped) and a real worker pointed at it, as this process
is. With the broker killed, two raters submit their sheets, an admin launches a
generation run and a researcher starts an export: every request answers normally and
the pages say the work will start when the workers are reachable. When the broker is
back, the agreement is computed, the run finishes and the export completes without
any further action: the workers' outbox sweep sends what was recorded."""

import json
import os
import time
from pathlib import Path

import pytest
import redis
from django.conf import settings as django_settings
from django.urls import reverse

from calibration.models import FinalScore
from core.llm import leases
from core.models import TaskOutbox
from generation.models import GenerationRun
from research.models import ExportJob, ResponseDiversity
from scoring.models import ScoreSheet
from scoring.score_files import data_a_changes
from studies.models import Condition, Response, Scenario, Study
from studies.rubric import load_rubric
from teamllm_web.cache import redis_cache
from tests.brokers import RedisServer, celery_broker
from tests.factories import code_for, own_sheet_id, stub_endpoint
from tests.workers import WorkerProcess, session_worker_stop, wait_for

pytestmark = [
    pytest.mark.worker,
    pytest.mark.fault,
    pytest.mark.skipif(not RedisServer.available(), reason="needs redis-server to run a private broker"),
]

TEXTS = [[f"texts.{key}", "copied"] for key in ("condition_phrase", "stem", "kvp", "purpose")]


class Outage:
    def __init__(self, redis: RedisServer, worker: WorkerProcess):
        self.redis, self.worker = redis, worker


@pytest.fixture
def outage(transactional_db, settings):
    """A private Redis (broker, cache, leases) and a worker on it; the session's worker
    is stopped, since its sweep would send this test's tasks through the shared Redis."""
    session_worker_stop()  # `celery_worker` starts it again for the tests that need it
    redis = RedisServer().start()
    worker = WorkerProcess(
        extra_env={
            "CELERY_BROKER_URL": redis.url,
            "REDIS_URL": redis.url,
            "OUTBOX_REDELIVER_SECONDS": "3",  # a message the broker lost is sent again soon
        }
    )
    worker.log_path = Path(django_settings.VAR_DIR) / f"test-outage-worker-{os.getpid()}.log"
    worker.log_path.unlink(missing_ok=True)
    try:
        # celery_broker first: Celery reads Django's settings on its first use, which may be
        # here, and it restores the URL it read; read after the override below, that was this
        # test's Redis, and the tests after this one found their broker dead
        with celery_broker(redis.url):
            settings.REDIS_URL = settings.CELERY_BROKER_URL = redis.url
            settings.CACHES = {  # the production cache on this Redis: a miss while it is down
                "default": redis_cache(url=redis.url, prefix=settings.REDIS_KEY_PREFIX, timeout=2)
            }
            leases.reset_for_tests()
            worker.start()
            try:
                yield Outage(redis, worker)
            finally:
                worker.stop()
    finally:
        redis.kill()
        leases.reset_for_tests()


def _json(client, url, payload):
    return client.post(url, data=json.dumps(payload), content_type="application/json")


def _pair_saved(client, response, data_a):
    """The demo pair (rater1, rater2) fill their sheets of A05_FS10 from data_A: their versions."""
    rubric = load_rubric()
    versions = {}
    for index, username in ((3, "rater1"), (4, "rater2")):
        client.login(username=username, password="demo-pass-2026")
        code = code_for(username, response)  # each rater has their own code
        client.get(f"/scoring/{code}/")
        changes = [list(c) for c in data_a_changes(data_a[0][index], rubric)] + TEXTS
        saved = _json(
            client,
            f"/scoring/{code}/save/",
            {
                "sheet": own_sheet_id(client, code),
                "batch_id": username,
                "expected_version": 0,
                "changes": changes,
            },
        )
        versions[username] = saved.json()["version"]
    return versions


def _pair_submitted(client, response, versions):
    """Both raters submit their sheets: the answers to the submits."""
    submitted = []
    for username in ("rater1", "rater2"):
        client.login(username=username, password="demo-pass-2026")
        code = code_for(username, response)
        submitted.append(
            _json(
                client,
                f"/scoring/{code}/submit/",
                {"sheet": own_sheet_id(client, code), "expected_version": versions[username]},
            )
        )
    return submitted


def _single_model_batch_launched(client, endpoint, *, name):
    """The admin launches a batch of FS10 under condition B (single model: 6 calls)."""
    client.login(username="admin", password="demo-pass-2026")
    return client.post(
        reverse("generation:home"),
        {
            "study": Study.objects.get(name="CGPST demo").pk,
            "scenarios": [Scenario.objects.get(code="FS10").pk],
            "endpoints": [endpoint.pk],
            "conditions": [Condition.objects.get(letter="B").pk],
            "name": name,
        },
    )


def test_nothing_is_lost_while_the_broker_is_down(outage, demo, client, llm_stub, data_a):
    response = Response.objects.get(research_id="A05_FS10")
    versions = _pair_saved(client, response, data_a)
    endpoint = stub_endpoint(llm_stub)
    # the demo response's diversity task is done before the broker goes: a task still running
    # when it goes makes the worker exit (kombu cannot restore its unacknowledged message)
    wait_for(lambda: ResponseDiversity.objects.filter(response=response).exists(), worker=outage.worker)

    outage.redis.kill()  # the broker is down

    for submitted in _pair_submitted(client, response, versions):
        assert submitted.status_code == 200 and submitted.json()["ok"] is True  # the rater sees "Submitted"
    assert set(ScoreSheet.objects.filter(assignment__response=response).values_list("status", flat=True)) == {
        "submitted"
    }

    launched = _single_model_batch_launched(client, endpoint, name="during the outage")
    assert launched.status_code == 302
    batch_page = client.get(launched["Location"]).content.decode()
    assert "queued, will start when the workers are reachable" in batch_page

    client.login(username="researcher", password="demo-pass-2026")
    started = client.post(reverse("research:export_start"), {"kind": "results", "study": response.study_id})
    assert started.status_code == 200
    assert b"The export will start by itself when they are reachable." in started.content

    pending = TaskOutbox.objects.filter(sent_at__isnull=True)
    assert sorted(pending.values_list("task_name", flat=True)) == [
        "calibration.tasks.response_scores_changed",
        "calibration.tasks.response_scores_changed",
        "generation.tasks.run_advance",
        "research.tasks.export_job_run_task",
    ]
    # The worker's sweep keeps trying (the oldest first, and failing) while the broker is down.
    wait_for(lambda: pending.order_by("pk").first().attempts >= 3, timeout=60, worker=outage.worker)
    assert not FinalScore.objects.filter(response=response).exists()
    run = GenerationRun.objects.get()
    job = ExportJob.objects.get()
    assert run.status == "queued" and job.status == "queued"

    outage.redis.start()  # the broker is back (empty: it kept nothing)

    final = wait_for(
        lambda: FinalScore.objects.filter(response=response).first(), timeout=120, worker=outage.worker
    )
    assert str(final.overall) == "116.50"  # the agreement and final score of the pair
    run = wait_for(
        lambda: GenerationRun.objects.filter(pk=run.pk, status__in=["succeeded", "failed"]).first(),
        timeout=120,
        worker=outage.worker,
    )
    assert run.status == "succeeded", run.error
    assert run.calls_done == run.calls_total == 6 and run.response is not None
    job = wait_for(
        lambda: ExportJob.objects.filter(pk=job.pk, status__in=["done", "failed"]).first(),
        timeout=120,
        worker=outage.worker,
    )
    assert job.status == "done", job.error
    # what the finished work recorded in turn (the new response's diversity, ...) is sent
    # after its commit: wait until every recorded task has run to its end
    owed = TaskOutbox.objects.filter(done_at__isnull=True)
    wait_for(lambda: not owed.exists(), timeout=60, worker=outage.worker)

    download = client.get(reverse("research:export_download", args=[job.pk]))
    assert download.status_code == 200 and b"".join(download.streaming_content)[:2] == b"PK"
    job.file.delete(save=False)  # written to the shared var/media
    client.login(username="admin", password="demo-pass-2026")
    assert (
        "will start when the workers are reachable" not in client.get(launched["Location"]).content.decode()
    )


def test_tasks_the_broker_took_and_lost_are_sent_again(outage, demo, client, llm_stub, data_a):
    """Redis restarted empty (no persistence) while accepted work waited for the worker: every
    owed effect still happens, without a command (issue 24, finding 3)."""
    response = Response.objects.get(research_id="A05_FS10")
    versions = _pair_saved(client, response, data_a)
    endpoint = stub_endpoint(llm_stub)
    wait_for(lambda: ResponseDiversity.objects.filter(response=response).exists(), worker=outage.worker)

    outage.worker.stop()  # the work waits in the broker: nobody consumes it
    for submitted in _pair_submitted(client, response, versions):
        assert submitted.status_code == 200
    launched = _single_model_batch_launched(client, endpoint, name="before the broker lost its data")
    assert launched.status_code == 302
    client.login(username="researcher", password="demo-pass-2026")
    started = client.post(reverse("research:export_start"), {"kind": "results", "study": response.study_id})
    assert started.status_code == 200
    owed = TaskOutbox.objects.filter(done_at__isnull=True)
    # the broker took every task (nothing pending in the outbox), none is done yet
    assert not owed.filter(sent_at__isnull=True).exists()
    assert sorted(owed.values_list("task_name", flat=True)) == [
        "calibration.tasks.response_scores_changed",
        "calibration.tasks.response_scores_changed",
        "generation.tasks.run_advance",
        "research.tasks.export_job_run_task",
    ]

    outage.redis.kill()
    outage.redis.start()  # back, empty: the four messages are gone
    from teamllm_web.celery import app

    app._pool = None  # this process's connections (pool, producers, pings) went with the old server
    app.amqp._producer_pool = None
    app.__dict__.pop("control", None)
    for attempt in range(3):  # the first ping may still meet a connection to the old server
        try:
            outage.worker.start()
            break
        except redis.exceptions.ConnectionError:
            if attempt == 2:
                raise

    final = wait_for(
        lambda: FinalScore.objects.filter(response=response).first(), timeout=120, worker=outage.worker
    )
    assert str(final.overall) == "116.50"
    run = wait_for(
        lambda: GenerationRun.objects.filter(status__in=["succeeded", "failed"]).first(),
        timeout=120,
        worker=outage.worker,
    )
    assert run.status == "succeeded", run.error
    job = wait_for(
        lambda: ExportJob.objects.filter(status__in=["done", "failed"]).first(),
        timeout=120,
        worker=outage.worker,
    )
    assert job.status == "done", job.error
    generated = run.response
    wait_for(lambda: ResponseDiversity.objects.filter(response=generated).exists(), worker=outage.worker)
    wait_for(lambda: not owed.exists(), timeout=60, worker=outage.worker)  # every task ran to its end
    job.file.delete(save=False)


def _batch_of_endpoints(client, endpoints, *, name):
    """The admin launches the single-model condition on FS10 for each endpoint: one run each."""
    client.login(username="admin", password="demo-pass-2026")
    study = Study.objects.get(name="CGPST demo")
    study.endpoints.add(*endpoints)  # the study's catalogue (set-up, not under test)
    launched = client.post(
        reverse("generation:home"),
        {
            "study": study.pk,
            "scenarios": [Scenario.objects.get(code="FS10").pk],
            "endpoints": [e.pk for e in endpoints],
            "conditions": [Condition.objects.get(letter="B").pk],
            "name": name,
        },
    )
    assert launched.status_code == 302, launched.context["form"].errors
    return launched["Location"]


def _every_run_finished_exactly(outage):
    wait_for(
        lambda: not GenerationRun.objects.filter(status__in=["queued", "running"]).exists(),
        timeout=240,
        worker=outage.worker,
    )
    for run in GenerationRun.objects.all():
        assert run.status == "succeeded", run.error  # no run failed for the outage
        assert run.calls_done == run.calls_total == run.turns.count() == 6  # each call stored once
        assert run.waiting_for == "" and run.waiting_until is None
    assert outage.worker.alive  # the worker rode out the outage


@pytest.mark.parametrize("away_seconds", [1, 30])
def test_runs_wait_out_redis_restarted_empty_mid_run(outage, demo, client, llm_stub, away_seconds):
    """Issue 37, finding 1: Redis (broker, cache, leases, pacing) restarted empty while runs
    make calls failed 3 of 15 runs after ~1 s and killed the worker after 30 s (Celery 5.7).
    Now the runs pause (the batch page says until when) and finish exactly; the worker lives."""
    llm_stub.configure(latency_ms=400)  # a task makes two or three calls: an outage meets some mid-task
    endpoints = [
        stub_endpoint(llm_stub, name=f"stub {n}", model_number=f"9{n}", concurrency_limit=2)
        for n in range(1, 5)
    ]
    batch_url = _batch_of_endpoints(client, endpoints, name=f"redis away {away_seconds} s")
    runs = GenerationRun.objects.all()
    assert runs.count() == 4
    wait_for(lambda: runs.filter(calls_done__gte=1).count() >= 2, timeout=60, worker=outage.worker)

    outage.redis.kill()
    time.sleep(away_seconds)
    if away_seconds > 1:
        # A run whose task met the outage is paused with a deadline the page shows; the others
        # wait for their next task (owed to the broker in the outbox, or lost with it and sent
        # again). None failed.
        page = client.get(batch_url).content.decode()
        for run in runs.exclude(waiting_for=""):
            assert "Redis is unreachable" in run.waiting_for and run.waiting_until is not None
            assert 'id="batch-paused"' in page and "paused by an outage" in page
        assert not runs.filter(status="failed").exists()
    outage.redis.start()  # back, empty

    _every_run_finished_exactly(outage)
    page = client.get(batch_url).content.decode()
    assert 'id="batch-paused"' not in page

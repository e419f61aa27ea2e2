"""Every worker gone: stuck runs get a deadline the batch page shows; past it the web
processes fail them with the reason, and the first worker back resumes them (issue 37, finding 4)."""

import json
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from core.tasks.worker_beats import worker_beat_record
from generation.models import GenerationRun, RunStatus
from generation.selectors import job_orphan_deadline
from generation.services.batches import batch_create
from generation.services.recovery import NO_WORKER, jobs_fail_orphaned, jobs_resume_orphaned
from studies.models import Condition, Scenario, Study
from teamllm_web.health import stuck_runs
from teamllm_web.metrics import metrics_exposition
from tests.factories import stub_endpoint
from tests.workers import child_env

pytestmark = pytest.mark.fault
QUEUE = "orphan-test-queue"  # no worker of the test session beats for it
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def run(db, demo, llm_stub, settings):
    settings.CELERY_TASK_DEFAULT_QUEUE = QUEUE
    settings.ENGINE_START_SECONDS = 1
    settings.ENGINE_ORPHAN_SECONDS = 60
    return batch_create(
        study=Study.objects.get(name="CGPST demo"),
        scenarios=[Scenario.objects.get(code="FS10")],
        endpoints=[stub_endpoint(llm_stub)],
        conditions=[Condition.objects.get(letter="B")],
        enqueue=lambda **kwargs: None,  # its task is lost, and no worker would take it anyway
    ).runs[0]


def _queued_ago(run, seconds):
    GenerationRun.objects.filter(pk=run.pk).update(dispatched_at=timezone.now() - timedelta(seconds=seconds))


def test_a_stuck_run_shows_its_deadline_then_fails_with_the_reason_and_resumes(run, admin_client):
    _queued_ago(run, 30)  # stuck (no worker took it up), its deadline 30 s ahead
    assert jobs_fail_orphaned(queue=QUEUE) == []
    page = admin_client.get(f"/manage/generation/batches/{run.batch_id}/").content.decode()
    run.refresh_from_db()
    deadline = timezone.localtime(job_orphan_deadline(run)).strftime("%Y-%m-%d %H:%M")
    assert 'id="batch-orphaned"' in page and "No worker is working: 1 run waits for one." in page
    assert f"it fails at {deadline}" in page

    _queued_ago(run, 61)
    assert jobs_fail_orphaned(queue=QUEUE) == [("generation", run.pk)]
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and run.waiting_for == NO_WORKER
    assert run.error.startswith("No worker worked on it for 60 s: every worker is gone.")
    page = admin_client.get(f"/manage/generation/batches/{run.batch_id}/").content.decode()
    assert "every worker is gone" in page and 'id="batch-orphaned"' not in page
    # /status/ and the metrics say so too
    assert stuck_runs()["failed_no_worker"] == 1
    exposition = metrics_exposition().decode()
    assert 'teamllm_engine_jobs_waiting{kind="generation",reason="no_worker"} 1.0' in exposition
    assert jobs_fail_orphaned(queue=QUEUE) == []  # once

    assert jobs_resume_orphaned(enqueue=lambda **kwargs: None) == [("generation", run.pk)]
    run.refresh_from_db()
    assert run.status == RunStatus.QUEUED and run.waiting_for == "" and run.error == ""
    assert "every worker had been gone" in run.recovery_note


def test_a_live_worker_is_left_to_resume_stuck_runs(run):
    _queued_ago(run, 600)
    worker_beat_record(hostname="celery@alive", queue=QUEUE)
    assert jobs_fail_orphaned(queue=QUEUE) == []
    run.refresh_from_db()
    assert run.status == RunStatus.QUEUED


def test_every_web_process_runs_the_deadlines():
    """The WSGI application (gunicorn, runserver) starts the periodic job in each process."""
    script = "import json, teamllm_web.wsgi\nfrom core.tasks.periodic import periodic\nprint(json.dumps(sorted(periodic().jobs)))"
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "orphan deadlines" in json.loads(result.stdout.strip().splitlines()[-1])

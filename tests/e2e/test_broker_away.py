"""With the broker unreachable, every page that commits work and dispatches a task
answers normally: the work is committed, its task waits in the outbox, and the
pages say it will start when the workers are reachable (no worker here)."""

import json

import pytest
from django.urls import reverse

from core.models import TaskOutbox
from generation.models import GenerationRun
from research.models import ExportJob
from scoring.models import ScoreSheet
from scoring.score_files import data_a_changes
from studies.models import Condition, Response, Scenario, Study
from studies.rubric import load_rubric
from tests.brokers import celery_broker, free_port, silent_server
from tests.factories import code_for, own_sheet_id, stub_endpoint
from tests.workers import session_worker_stop

pytestmark = [pytest.mark.fault, pytest.mark.django_db(transaction=True)]  # the requests commit


@pytest.fixture
def broker_away():
    session_worker_stop()  # its outbox sweep would send the tasks this test keeps pending
    with celery_broker(f"redis://127.0.0.1:{free_port()}/0"):  # nothing listens there
        yield


@pytest.fixture
def broker_hanging():
    session_worker_stop()
    with silent_server() as url, celery_broker(url):
        yield


def _post_json(client, url, payload):
    return client.post(url, data=json.dumps(payload), content_type="application/json")


def _submit_a05_as_rater2(client, data_a):
    code = code_for("rater2", Response.objects.get(research_id="A05_FS10"))
    client.login(username="rater2", password="demo-pass-2026")
    client.get(f"/scoring/{code}/")
    changes = [list(c) for c in data_a_changes(data_a[0][4], load_rubric())]
    changes += [[f"texts.{k}", "copied"] for k in ("condition_phrase", "stem", "kvp", "purpose")]
    version = _post_json(
        client,
        f"/scoring/{code}/save/",
        {"sheet": own_sheet_id(client, code), "batch_id": "b1", "expected_version": 0, "changes": changes},
    ).json()["version"]

    return _post_json(
        client, f"/scoring/{code}/submit/", {"sheet": own_sheet_id(client, code), "expected_version": version}
    )


def test_a_submit_answers_200_and_its_agreement_task_waits_in_the_outbox(client, demo, data_a, broker_away):
    reply = _submit_a05_as_rater2(client, data_a)

    assert reply.status_code == 200 and reply.json()["ok"] is True
    assert ScoreSheet.objects.get(assignment__rater__username="rater2").status == "submitted"
    task = TaskOutbox.objects.get(task_name="calibration.tasks.response_scores_changed")
    assert task.args == [Response.objects.get(research_id="A05_FS10").pk]
    assert task.sent_at is None and task.attempts == 1 and task.last_error


def test_a_generation_launch_answers_normally_and_says_the_runs_wait(client, demo, llm_stub, broker_away):
    client.login(username="admin", password="demo-pass-2026")
    endpoint = stub_endpoint(llm_stub)
    reply = client.post(
        reverse("generation:home"),
        {
            "study": Study.objects.get(name="CGPST demo").pk,
            "scenarios": [Scenario.objects.get(code="FS10").pk],
            "endpoints": [endpoint.pk],
            "conditions": [Condition.objects.get(letter="B").pk],
            "name": "while the broker is away",
        },
    )
    assert reply.status_code == 302
    run = GenerationRun.objects.get()
    assert run.status == "queued"
    task = TaskOutbox.objects.get(task_name="generation.tasks.run_advance")
    assert task.args == [run.pk, 0] and task.sent_at is None

    batch_page = client.get(reply["Location"]).content.decode()
    assert "queued, will start when the workers are reachable" in batch_page
    assert "1 run is queued but the workers cannot be reached right now" in batch_page
    run_page = client.get(reverse("generation:run_detail", args=[run.pk])).content.decode()
    assert "The run will start by itself when they are reachable." in run_page


def test_an_export_answers_normally_and_says_it_waits(client, demo, broker_away):
    client.login(username="researcher", password="demo-pass-2026")
    study = Study.objects.get(name="CGPST demo")
    started = client.post(reverse("research:export_start"), {"kind": "results", "study": study.pk})
    assert started.status_code == 200
    assert b"The export will start by itself when they are reachable." in started.content
    job = ExportJob.objects.get()
    assert job.status == "queued"
    assert TaskOutbox.objects.get(task_name="research.tasks.export_job_run_task").args == [job.pk]
    polled = client.get(reverse("research:export_status", args=[job.pk]))
    assert polled.status_code == 200 and b"every 1s" in polled.content  # still polling
    assert b"The export will start by itself" in polled.content


def test_a_broker_that_hangs_does_not_hold_the_submit(client, demo, data_a, broker_hanging):
    # The broker accepts the connection and never answers: publishing times out
    # (REDIS_TIMEOUT_SECONDS), the submit answers, and the task waits in the outbox.
    reply = _submit_a05_as_rater2(client, data_a)

    assert reply.status_code == 200 and reply.json()["ok"] is True
    assert ScoreSheet.objects.get(assignment__rater__username="rater2").status == "submitted"
    task = TaskOutbox.objects.get(task_name="calibration.tasks.response_scores_changed")
    assert task.sent_at is None and task.attempts == 1
    assert "timeout" in task.last_error.lower() or "timed out" in task.last_error.lower()

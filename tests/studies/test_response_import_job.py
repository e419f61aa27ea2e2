"""A response file too large to import in the request goes to a worker (hostile pass 9, F7: 6,000
records took about 170 s in the request, past a proxy's 60 s): the page records a job and shows its
progress, polled by htmx until it has finished; all or nothing, as an import in the request."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from core.models import TaskOutbox
from studies.models import AuditEvent, Response, ResponseImportJob
from studies.services.import_jobs import IMPORT_TASK, response_import_job_run
from tests.factories import SAMPLE_ANSWERS
from tests.workers import wait_for

ROWS = [("B05_FS10", "kimi-k2", "B"), ("C05_FS10", "kimi-k2", "C"), ("D05_FS10", "kimi-k2", "D")]


def _file(rows=ROWS, steps=SAMPLE_ANSWERS) -> SimpleUploadedFile:
    lines = [
        json.dumps(
            {"research_id": rid, "scenario": "FS10", "model": model, "condition": letter, "steps": steps}
        )
        for rid, model, letter in rows
    ]
    return SimpleUploadedFile("r.jsonl", "\n".join(lines).encode(), "application/json")


@pytest.fixture
def small_cap(monkeypatch):
    """Two records are imported in the request; three go to a worker."""
    monkeypatch.setattr("studies.services.import_jobs.IMPORT_IN_REQUEST_MAX", 2)


def _start(client, demo, upload) -> ResponseImportJob:
    client.login(username="admin", password="demo-pass-2026")
    reply = client.post(reverse("studies:responses_import", args=[demo.study.pk]), {"file": upload})
    job = ResponseImportJob.objects.get()
    assert reply.status_code == 302
    assert reply["Location"] == reverse("studies:responses_import_job", args=[demo.study.pk, job.pk])
    return job


def _poll(client, job):
    return client.get(
        reverse("studies:responses_import_job", args=[job.study_id, job.pk]), HTTP_HX_REQUEST="true"
    )


@pytest.mark.django_db
def test_a_large_file_becomes_a_job_whose_page_shows_its_progress_then_its_outcome(client, demo, small_cap):
    job = _start(client, demo, _file())
    assert job.status == "queued" and job.created_by.username == "admin" and job.language == "en"
    assert TaskOutbox.objects.filter(task_name=IMPORT_TASK, args=[job.pk]).exists()  # sent after commit
    assert not Response.objects.filter(research_id="B05_FS10").exists()
    page = client.get(reverse("studies:responses_import_job", args=[demo.study.pk, job.pk])).content.decode()
    assert 'data-status="queued"' in page and 'hx-trigger="every 2s"' in page
    polled = _poll(client, job)
    assert polled.status_code == 200 and b"<html" not in polled.content  # the fragment only

    done = response_import_job_run(job_id=job.pk)
    assert done.status == "done" and done.progress == done.total == len(ROWS)
    assert done.content == "" and done.finished_at is not None  # the file's text is not kept
    assert set(Response.objects.values_list("research_id", flat=True)) >= {rid for rid, _m, _l in ROWS}
    event = AuditEvent.objects.get(action="responses.import")
    assert event.actor.username == "admin" and event.reason == "responses import page"
    finished = _poll(client, job)
    assert finished.status_code == 286  # htmx stops polling
    text = finished.content.decode()
    assert "The import is done." in text and "3 response(s) created" in text and "hx-trigger" not in text
    # a redelivery of the finished job changes nothing
    assert response_import_job_run(job_id=job.pk).finished_at == done.finished_at
    assert Response.objects.filter(research_id__in=[r for r, _m, _l in ROWS]).count() == len(ROWS)


@pytest.mark.django_db
def test_a_refused_file_imports_nothing_and_its_page_lists_every_problem(client, demo, small_cap):
    rows = [*ROWS[:2], ("D05_FS10", "no-such-model", "D")]
    job = _start(client, demo, _file(rows))
    failed = response_import_job_run(job_id=job.pk)
    assert failed.status == "failed" and failed.problems and not failed.error
    assert "no-such-model" in " ".join(failed.problems)
    assert not Response.objects.filter(research_id__in=["B05_FS10", "C05_FS10"]).exists()
    page = _poll(client, job).content.decode()
    assert "Nothing was imported: 1 problem." in page and "no-such-model" in page


@pytest.mark.django_db
def test_small_files_are_still_imported_in_the_request(client, demo, small_cap):
    client.login(username="admin", password="demo-pass-2026")
    reply = client.post(reverse("studies:responses_import", args=[demo.study.pk]), {"file": _file(ROWS[:2])})
    assert reply.status_code == 302 and reply["Location"] == reverse("studies:study", args=[demo.study.pk])
    assert not ResponseImportJob.objects.exists() and Response.objects.filter(research_id="C05_FS10").exists()


@pytest.mark.django_db
@pytest.mark.parametrize("username", ["rater1", "researcher"])
def test_only_admins_see_an_import_job_and_only_under_its_own_study(client, demo, small_cap, username):
    from studies.models import Study

    job = _start(client, demo, _file())
    other = Study.objects.create(name="Other")
    assert client.get(reverse("studies:responses_import_job", args=[other.pk, job.pk])).status_code == 404
    client.logout()
    client.login(username=username, password="demo-pass-2026")
    assert (
        client.get(reverse("studies:responses_import_job", args=[demo.study.pk, job.pk])).status_code == 403
    )


@pytest.mark.worker
def test_the_worker_imports_a_large_file(celery_worker, demo, client, small_cap):
    job = _start(client, demo, _file())
    pk = job.pk
    done = wait_for(
        lambda: ResponseImportJob.objects.filter(pk=pk, status__in=("done", "failed")).first(),
        worker=celery_worker,
    )
    assert done.status == "done", (done.problems, done.error, celery_worker.log_path.read_text()[-2000:])
    assert Response.objects.filter(research_id__in=[r for r, _m, _l in ROWS]).count() == len(ROWS)
    assert _poll(client, done).status_code == 286


@pytest.mark.django_db
def test_the_api_hands_a_large_file_to_a_worker_and_gives_a_status_url(demo, monkeypatch):
    from django.contrib.auth import get_user_model
    from django.test import Client

    from api.services.tokens import token_create

    monkeypatch.setattr("studies.services.import_jobs.IMPORT_IN_REQUEST_MAX", 2)
    users = get_user_model().objects
    admin = Client(
        HTTP_AUTHORIZATION=f"Bearer {token_create(user=users.get(username='admin'), name='t', scope='write', days=1).plain}"
    )
    content = _file().read().decode()
    url = f"/api/v1/studies/{demo.study.pk}/responses/import"
    started = admin.post(url, {"content": content}, content_type="application/json")
    assert started.status_code == 202, started.content
    job = ResponseImportJob.objects.get()
    assert started.json() == {
        "job": job.pk,
        "status": "queued",
        "progress": 0,
        "total": 0,
        "status_url": f"{url}/jobs/{job.pk}",
    }
    response_import_job_run(job_id=job.pk)
    status = admin.get(started.json()["status_url"]).json()
    assert status["status"] == "done" and status["progress"] == status["total"] == 3
    assert status["result"]["created"] == [rid for rid, _m, _l in ROWS] and status["result"]["held"] == []
    assert admin.get(f"{url}/jobs/{job.pk + 1}").status_code == 404
    researcher = Client(
        HTTP_AUTHORIZATION=f"Bearer {token_create(user=users.get(username='researcher'), name='r', scope='read', days=1).plain}"
    )
    assert researcher.get(started.json()["status_url"]).status_code == 403


@pytest.mark.django_db
def test_the_job_is_done_in_the_imports_own_transaction(client, demo, small_cap, monkeypatch):
    """Hostile pass 11 (3b): a worker killed after the import's commit and before the job was marked
    left the job running with every response in, and its report lost at the redelivery. Now the
    outcome is written inside the import's transaction: a failure there leaves neither."""
    import studies.services.import_jobs as jobs

    job = _start(client, demo, _file())

    def dies(**kwargs):
        raise RuntimeError("worker lost while writing the report")

    monkeypatch.setattr(jobs, "responses_import_warnings", dies)
    failed = response_import_job_run(job_id=job.pk)
    assert failed.status == "failed" and "worker lost" in failed.error
    assert not Response.objects.filter(research_id__in=[r for r, _m, _l in ROWS]).exists()  # rolled back


@pytest.mark.django_db
def test_a_clash_with_another_import_says_so_in_words_and_a_finished_job_stays_finished(
    client, demo, small_cap, monkeypatch
):
    """Hostile pass 11 (3c, 3d): two overlapping imports showed PostgreSQL's own text; a copy of the
    task running beside the first could write over its outcome."""
    from django.db import IntegrityError

    import studies.services.import_jobs as jobs

    job = _start(client, demo, _file())

    def clash(**kwargs):
        raise IntegrityError('duplicate key value violates unique constraint "scenario_code_unique_in_study"')

    monkeypatch.setattr(jobs, "responses_import", clash)
    failed = response_import_job_run(job_id=job.pk)
    assert failed.status == "failed" and failed.error.startswith(
        "Another import changed this study at the same time"
    )
    assert "duplicate key" not in failed.error and "duplicate key" not in _poll(client, job).content.decode()
    jobs._finish(job.pk, status="done", summary="overwritten")  # what a late copy of the task would do
    failed.refresh_from_db()
    assert failed.status == "failed" and failed.summary == ""

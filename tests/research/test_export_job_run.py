"""Large exports run in a real Celery worker; the page polls a progress bar and offers the file."""

import io

import pytest
from django.contrib.auth import get_user_model
from openpyxl import load_workbook

from core.accounts.roles import RESEARCHER
from research.models import ExportJob
from research.services.exports import export_job_run
from studies.models import Response
from tests.factories import UserFactory, rater, scoring_group_assigned
from tests.workers import wait_for

pytestmark = pytest.mark.worker


def test_results_export_runs_in_the_worker_with_progress_and_download(celery_worker, demo, client):
    # The worker saves the file to the storage and this process (the web) streams it from
    # there: both use the same storage, as every web host and worker of a deployment do.
    study = Response.objects.get(research_id="A05_FS10").study
    client.force_login(UserFactory(username="res2", role=RESEARCHER))
    started = client.post("/research/exports/", {"kind": "results", "study": study.pk})
    assert started.status_code == 200 and b"every 1s" in started.content
    job = ExportJob.objects.get()
    assert job.created_by.username == "res2"
    pk = job.pk
    job = wait_for(
        lambda: ExportJob.objects.filter(pk=pk, status__in=("done", "failed")).first(), worker=celery_worker
    )
    assert job.status == "done", (job.error, celery_worker.log_path.read_text()[-2000:])
    status = client.get(f"/research/exports/{job.pk}/")
    assert status.status_code == 286  # htmx stops polling
    assert f"/research/exports/{job.pk}/download".encode() in status.content
    download = client.get(f"/research/exports/{job.pk}/download")
    assert download.status_code == 200
    wb = load_workbook(io.BytesIO(b"".join(download.streaming_content)))
    assert "About" in wb.sheetnames
    client.force_login(rater("r-x", "H77"))
    assert client.get(f"/research/exports/{job.pk}/download").status_code == 403
    job.file.delete(save=False)  # the worker wrote to the shared storage (var/media): leave nothing


@pytest.mark.django_db
def test_export_job_is_idempotent_and_records_failures(demo, tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path
    users = get_user_model().objects
    response = Response.objects.get(research_id="A05_FS10")
    scoring_group_assigned(
        responses=[response], rater_a=users.get(username="rater1"), rater_b=users.get(username="rater2")
    )
    job = ExportJob.objects.create(kind="workbooks", params={"study_id": response.study_id})
    done = export_job_run(job_id=job.pk)
    assert done.status == "done" and done.progress == done.total == 2 and done.file_name.endswith(".zip")
    first = done.finished_at
    assert export_job_run(job_id=job.pk).finished_at == first  # a redelivery leaves a done job alone
    bad = ExportJob.objects.create(kind="results", params={"study_id": 999999})
    failed = export_job_run(job_id=bad.pk)
    assert failed.status == "failed" and failed.error

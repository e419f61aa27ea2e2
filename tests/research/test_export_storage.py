"""Exports live in Django's storage (``STORAGES["default"]``), not at raw paths on one
host's disk: any web host streams them from there, with the same permission checks;
they are deleted with their files after ``EXPORT_RETENTION_DAYS``; and the rows of
the old layout keep their files through the migration."""

from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import InMemoryStorage, default_storage
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from core.accounts.roles import RESEARCHER
from research.models import ExportJob
from research.services.exports import export_job_run, exports_expired_delete
from studies.models import Response, Study
from tests.factories import UserFactory, rater

IN_MEMORY = {
    "default": {"BACKEND": "django.core.files.storage.InMemoryStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}


@pytest.mark.django_db
def test_an_export_is_saved_to_the_storage_and_streamed_from_it(demo, client, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"  # a local folder nobody should write to
    settings.STORAGES = IN_MEMORY  # a storage that is not this host's disk (as S3 would be)
    study = Response.objects.get(research_id="A05_FS10").study
    owner = UserFactory(username="res-s", role=RESEARCHER)
    job = ExportJob.objects.create(kind="results", params={"study_id": study.pk}, created_by=owner)

    done = export_job_run(job_id=job.pk)

    assert done.status == "done" and done.file.name == f"exports/{job.pk}/results_CGPST_demo.xlsx"
    assert default_storage.exists(done.file.name)
    assert not (tmp_path / "media").exists()  # nothing on the local disk
    client.force_login(owner)
    download = client.get(f"/research/exports/{job.pk}/download")
    assert download.status_code == 200
    body = b"".join(download.streaming_content)
    assert body[:2] == b"PK" and body == default_storage.open(done.file.name).read()
    assert 'filename="results_CGPST_demo.xlsx"' in download["Content-Disposition"]
    client.force_login(rater("r-s", "H78"))
    assert client.get(f"/research/exports/{job.pk}/download").status_code == 403  # permissions unchanged

    assert export_job_run(job_id=job.pk).finished_at == done.finished_at  # a redelivery: left alone
    default_storage.delete(done.file.name)
    client.force_login(UserFactory(username="res-t", role=RESEARCHER))
    assert client.get(f"/research/exports/{job.pk}/download").status_code == 404  # another researcher's
    client.force_login(owner)
    assert client.get(f"/research/exports/{job.pk}/download").status_code == 404  # gone from the storage
    rebuilt = export_job_run(job_id=job.pk)  # a redelivery of a job whose file is gone rebuilds it
    assert rebuilt.status == "done" and default_storage.exists(rebuilt.file.name)


@pytest.mark.django_db
def test_a_researcher_cannot_download_an_offline_workbooks_export(demo, client, settings):
    settings.STORAGES = IN_MEMORY
    job = ExportJob.objects.create(kind="workbooks", params={"study_id": Study.objects.get().pk})
    done = export_job_run(job_id=job.pk)
    assert done.status == "done"
    client.force_login(UserFactory(username="res-w", role=RESEARCHER))
    assert client.get(f"/research/exports/{job.pk}/download").status_code == 404  # admins only
    client.login(username="admin", password="demo-pass-2026")
    assert client.get(f"/research/exports/{job.pk}/download").status_code == 200


@pytest.mark.django_db
def test_expired_exports_are_deleted_with_their_files(settings):
    settings.STORAGES = IN_MEMORY
    settings.EXPORT_RETENTION_DAYS = 7
    now = timezone.now()

    def job(name: str, finished_days_ago: float | None, created_days_ago: float = 0) -> ExportJob:
        made = ExportJob.objects.create(
            kind="results", params={}, status="done" if finished_days_ago else "queued"
        )
        made.file.save("x.xlsx", ContentFile(b"PK data"), save=False)
        ExportJob.objects.filter(pk=made.pk).update(
            file=made.file.name,
            file_name=name,
            created_at=now - timedelta(days=created_days_ago),
            finished_at=None if finished_days_ago is None else now - timedelta(days=finished_days_ago),
        )
        return made

    old = job("old", finished_days_ago=8, created_days_ago=8)
    recent = job("recent", finished_days_ago=6, created_days_ago=9)  # a long build: counts from its end
    stuck = job("stuck", finished_days_ago=None, created_days_ago=8)  # never finished in the whole period
    waiting = job("waiting", finished_days_ago=None, created_days_ago=1)

    assert exports_expired_delete(now=now) == 2
    assert set(ExportJob.objects.values_list("file_name", flat=True)) == {"recent", "waiting"}
    assert not default_storage.exists(old.file.name) and not default_storage.exists(stuck.file.name)
    assert default_storage.exists(recent.file.name) and default_storage.exists(waiting.file.name)
    assert export_job_run(job_id=old.pk) is None  # its task, if it was still queued, does nothing

    settings.EXPORT_RETENTION_DAYS = 0  # keep everything
    assert exports_expired_delete(now=now + timedelta(days=365)) == 0
    assert ExportJob.objects.count() == 2


@pytest.mark.django_db
def test_every_worker_cleans_up_exports(monkeypatch):
    from core.tasks import periodic as periodic_module
    from research import tasks as research_tasks

    monkeypatch.setattr(periodic_module.Periodic, "ensure_started", lambda self: None)
    fresh = periodic_module.Periodic()
    monkeypatch.setattr(periodic_module, "_periodic", fresh)
    research_tasks._clean_up_exports_in_this_worker(sender=None)
    assert fresh.jobs["exports cleanup"].run is exports_expired_delete
    assert fresh.jobs["exports cleanup"].every == research_tasks.CLEANUP_EVERY_SECONDS


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_old_rows_and_their_files_under_media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    before, after = [("research", "0001_initial")], [("research", "0003_remove_exportjob_file_path")]
    try:
        executor = MigrationExecutor(connection)
        executor.migrate(before)
        old = (
            MigrationExecutor(connection).loader.project_state(before).apps.get_model("research", "ExportJob")
        )
        inside = Path(settings.MEDIA_ROOT) / "exports" / "12" / "results_Pilot.xlsx"
        rows = {
            "absolute": old.objects.create(kind="results", status="done", file_path=str(inside)),
            "relative": old.objects.create(
                kind="results", status="done", file_path="exports/2026/table1.xlsx"
            ),
            "outside": old.objects.create(
                kind="results", status="done", file_path=str(tmp_path / "elsewhere.xlsx")
            ),
            "escaping": old.objects.create(kind="results", status="done", file_path="../outside.xlsx"),
            "none": old.objects.create(kind="results", status="queued", file_path=""),
        }
        MigrationExecutor(connection).migrate(after)
        # read as the schema is at that point (a later migration renames the table)
        new = (
            MigrationExecutor(connection).loader.project_state(after).apps.get_model("research", "ExportJob")
        )
        names = {key: new.objects.only("file").get(pk=row.pk).file.name for key, row in rows.items()}
        assert names == {
            "absolute": "exports/12/results_Pilot.xlsx",
            "relative": "exports/2026/table1.xlsx",
            "outside": "",
            "escaping": "",
            "none": "",
        }
        # every row kept (other tests' rows may share the table: count only these)
        assert new.objects.filter(pk__in=[row.pk for row in rows.values()]).count() == 5
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())


class UnreachableStorage(InMemoryStorage):
    """A storage whose server does not answer (as an S3 endpoint that is down)."""

    def _save(self, name, content):
        raise ConnectionError("Could not connect to the endpoint URL")

    def _open(self, name, mode="rb"):
        raise ConnectionError("Could not connect to the endpoint URL")


UNREACHABLE = {
    "default": {"BACKEND": f"{__name__}.UnreachableStorage"},
    "staticfiles": IN_MEMORY["staticfiles"],
}


@pytest.mark.django_db
def test_an_unreachable_storage_fails_the_export_with_a_clear_message(demo, client, settings):
    settings.STORAGES = UNREACHABLE
    owner = UserFactory(username="res-u", role=RESEARCHER)
    job = ExportJob.objects.create(
        kind="results", params={"study_id": Study.objects.get().pk}, created_by=owner
    )
    failed = export_job_run(job_id=job.pk)
    assert failed.status == "failed" and failed.storage_failed and not failed.file
    assert "Could not connect" in failed.error
    client.force_login(owner)
    card = client.get(f"/research/exports/{job.pk}/").content.decode()
    assert "the file storage cannot be reached" in card and "Nothing is lost" in card

    other = ExportJob.objects.create(
        kind="results", params={"study_id": Study.objects.get().pk}, created_by=owner
    )
    other.file.name = "exports/x/results.xlsx"  # built earlier; the storage has gone away since
    ExportJob.objects.filter(pk=other.pk).update(status="done", file=other.file.name, file_name="r.xlsx")
    download = client.get(f"/research/exports/{other.pk}/download")
    assert download.status_code == 503
    assert "The file storage that holds r.xlsx does not answer" in download.content.decode()
    assert ExportJob.objects.get(pk=other.pk).status == "done"  # the export is kept

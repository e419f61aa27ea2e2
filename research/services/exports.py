"""Exports built by a worker (ExportJob): the results workbook and a study's offline workbooks.

``export_job_run`` is idempotent: a finished job is left alone, a redelivered job
rebuilds the same file path (overwriting), and a failure is recorded on the job.
"""

from __future__ import annotations

import logging
import re
import shutil
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from research.models import ExportJob
from research.selectors.research import results_get
from research.selectors.results import raw_score_rows_count
from research.workbook import results_workbook_write
from scoring.services.workbooks import workbooks_zip_write
from studies.dispatch import outbox_pending_subjects, task_send_on_commit
from studies.models import Condition, Study

log = logging.getLogger(__name__)

KIND_RESULTS = "results"
KIND_WORKBOOKS = "workbooks"
KINDS = (KIND_RESULTS, KIND_WORKBOOKS)
PROGRESS_EVERY = 200
EXPORT_TASK = "research.tasks.export_job_run_task"  # sent by name: services never import tasks


def export_dir(job: ExportJob) -> Path:
    return Path(settings.MEDIA_ROOT) / "exports" / str(job.pk)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_")[:60] or "study"


def export_job_create(*, kind: str, params: dict, user) -> ExportJob:
    """Create a job and record its task with it (the task outbox): it is sent after
    commit, or by a worker's sweep once the broker answers."""
    if kind not in KINDS:
        raise ValueError(f"unknown export kind {kind!r}")
    with transaction.atomic():
        job = ExportJob.objects.create(kind=kind, params=params, created_by=user)
        task_send_on_commit(name=EXPORT_TASK, args=(job.pk,))
    return job


def export_job_dispatch_pending(job: ExportJob) -> bool:
    """A queued job whose task the broker has not taken yet (it was away)."""
    return job.status == ExportJob.Status.QUEUED and job.pk in outbox_pending_subjects(name=EXPORT_TASK)


def _progress(job_id: int, done: int, total: int) -> None:
    ExportJob.objects.filter(pk=job_id).update(progress=done, total=total)


def export_job_run(*, job_id: int) -> ExportJob:
    job = ExportJob.objects.get(pk=job_id)
    if job.status == ExportJob.Status.DONE and job.file_path and Path(job.file_path).is_file():
        return job
    ExportJob.objects.filter(pk=job_id).update(status=ExportJob.Status.RUNNING, error="", progress=0)
    try:
        study = Study.objects.get(pk=job.params["study_id"])
        folder = export_dir(job)
        shutil.rmtree(folder, ignore_errors=True)
        if job.kind == KIND_RESULTS:
            path, name = _results(job, study, folder)
        else:
            path, name = _workbooks(job, study, folder)
    except Exception as exc:
        log.exception("export job %s failed", job_id)
        ExportJob.objects.filter(pk=job_id).update(
            status=ExportJob.Status.FAILED, error=str(exc)[:2000], finished_at=timezone.now()
        )
        return ExportJob.objects.get(pk=job_id)
    ExportJob.objects.filter(pk=job_id).update(
        status=ExportJob.Status.DONE, file_path=str(path), file_name=name, finished_at=timezone.now()
    )
    return ExportJob.objects.get(pk=job_id)


def _results(job: ExportJob, study: Study, folder: Path) -> tuple[Path, str]:
    params = job.params
    pair = tuple(params["pair"]) if params.get("pair") else None
    total = raw_score_rows_count(study=study) + 1
    _progress(job.pk, 0, total)
    results = results_get(
        study=study,
        conditions=params.get("conditions") or None,
        models=params.get("models") or None,
        pair=pair,
    )
    _progress(job.pk, 1, total)
    name = f"results_{_slug(study.name)}.xlsx"

    def on_sheet(n: int) -> None:
        if n % PROGRESS_EVERY == 0:
            _progress(job.pk, n + 1, total)

    names = dict(Condition.objects.values_list("letter", "name"))
    results_workbook_write(results, folder / name, condition_names=names, progress=on_sheet)
    _progress(job.pk, total, total)
    return folder / name, name


def _workbooks(job: ExportJob, study: Study, folder: Path) -> tuple[Path, str]:
    name = f"workbooks_{_slug(study.name)}.zip"
    written = workbooks_zip_write(
        study=study, path=folder / name, progress=lambda n, t: _progress(job.pk, n, t)
    )
    _progress(job.pk, written, written)
    return folder / name, name

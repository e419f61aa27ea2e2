"""Exports built by a worker (ExportJob): the results workbook and a study's offline workbooks.

The file is built in a temporary folder and saved to Django's default storage
(``STORAGES["default"]``: ``MEDIA_ROOT`` unless configured otherwise), so that any web
host can stream it back. ``export_job_run`` is idempotent: a finished job is left
alone, a redelivered job rebuilds its file, a failure is recorded on the job, and a job
deleted meanwhile (expired) is skipped. Jobs and their files are deleted
``EXPORT_RETENTION_DAYS`` after they finished (:func:`exports_expired_delete`, run
periodically by the workers).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import tempfile
import zipfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files import File
from django.db import connection, transaction
from django.db.models import F, Func, JSONField, Q, Value
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from core.tasks.outbox import outbox_pending_subjects, task_send_on_commit
from research.long_export import long_csv_write, long_xlsx_write
from research.models import (
    KIND_RELEASE_WORKBOOKS,
    KIND_RESULTS,
    KINDS,
    LONG_KINDS,
    STORAGE_ERROR_PREFIX,
    ExportJob,
)
from research.release_workbooks import release_workbooks_write
from research.selectors.conditions import condition_names_get
from research.selectors.generation import TURN_HEADER, turn_rows_count, turn_rows_iter
from research.selectors.long_tables import ITEM_HEADER, item_rows_iter, item_sheets_count
from research.selectors.release_sheets import release_sheets_get
from research.selectors.research import results_cached_get
from research.significance import MARKS_PAPER
from research.workbook import results_workbook_write
from scoring.services.workbooks import workbooks_zip_write
from studies.models import Study
from studies.rubric.cgpst import version_is_cgpst

if TYPE_CHECKING:
    from django.contrib.auth.models import User

log = logging.getLogger(__name__)

PROGRESS_EVERY = 200
EXPORT_TASK = "research.tasks.export_job_run_task"  # sent by name: services never import tasks


class ExportStorageError(Exception):
    """The storage (``STORAGES["default"]``) did not take the built file."""


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_")[:60] or "study"


class ExportParamsError(ValueError):
    """A condition, model or pair name no study could have (a control character such as NUL,
    which PostgreSQL cannot store: a 500 before, hostile pass 17; too long; too many)."""


# a condition's letter or name, a model's number or name: printable, at most 100 characters
_NAME = re.compile(r"[^\x00-\x1f\x7f]{1,100}")
_NAMES_MAX = 200


def _names_checked(params: dict[str, Any]) -> None:
    for key in ("conditions", "models", "pair"):
        names = params.get(key) or []
        if len(names) > _NAMES_MAX or not all(isinstance(n, str) and _NAME.fullmatch(n) for n in names):
            raise ExportParamsError(f"{key}: at most {_NAMES_MAX} names of 1-100 printable characters each")


class ExportLimit(Exception):
    """The person has ``EXPORT_JOBS_PER_USER`` exports waiting or running already."""

    def __init__(self, limit: int) -> None:
        super().__init__(limit)
        self.limit = limit


def export_job_create(*, kind: str, params: dict[str, Any], user: User) -> ExportJob:
    """Create a job and record its task with it (the task outbox): it is sent after
    commit, or by a worker's sweep once the broker answers. At most ``EXPORT_JOBS_PER_USER``
    of a person's exports wait or run at once (``ExportLimit``): nobody fills the workers'
    queue with exports (hostile pass 16)."""
    if kind not in KINDS:
        raise ValueError(f"unknown export kind {kind!r}")
    _names_checked(params)
    if kind == KIND_RELEASE_WORKBOOKS:
        rubric_version = Study.objects.filter(pk=int(params["study_id"])).values_list(
            "rubric_version", flat=True
        )
        if not all(version_is_cgpst(version) for version in rubric_version):
            raise ExportParamsError(
                _(
                    "The release's Excel layout holds the CGPST rubric's scores; this study uses another rubric."
                )
            )
    limit = int(settings.EXPORT_JOBS_PER_USER)
    with transaction.atomic():
        # one person's starts one at a time, so that two cannot both see room for one more
        get_user_model().objects.select_for_update(no_key=True).filter(pk=user.pk).first()
        active = (ExportJob.Status.QUEUED, ExportJob.Status.RUNNING)
        if limit > 0 and ExportJob.objects.filter(created_by=user, status__in=active).count() >= limit:
            raise ExportLimit(limit)
        job = ExportJob.objects.create(kind=kind, params=params, created_by=user)
        task_send_on_commit(name=EXPORT_TASK, args=(job.pk,))
    return job


def export_job_dispatch_pending(job: ExportJob) -> bool:
    """A queued job whose task the broker has not taken yet (it was away)."""
    return job.status == ExportJob.Status.QUEUED and job.pk in outbox_pending_subjects(name=EXPORT_TASK)


def _progress(job_id: int, done: int, total: int, step: str = "") -> None:
    """Store the progress (its own commit: the job's page polls it) and append it to the
    job's log in the same statement."""
    entry = {"done": done, "total": total, "step": step, "at": timezone.now().isoformat()}
    ExportJob.objects.filter(pk=job_id).update(
        progress=done, total=total, step=step, progress_log=_appended(F("progress_log"), entry)
    )


def _appended(log: F, entry: dict[str, Any]) -> Func:
    """SQL that appends ``entry`` to the JSON array ``log``: jsonb's ``||`` on PostgreSQL,
    ``json_insert(log, '$[#]', json(entry))`` on SQLite (where ``||`` joins text, which the
    column's JSON check rejects: ``make run``'s exports failed)."""
    if connection.vendor == "sqlite":
        item = Func(Value(json.dumps(entry)), function="json")
        return Func(log, Value("$[#]"), item, function="json_insert", output_field=JSONField())
    return Func(log, Value([entry], JSONField()), arg_joiner=" || ", function="")


def _stored(job: ExportJob) -> bool:
    return bool(job.file) and job.file.storage.exists(job.file.name)


def export_job_run(*, job_id: int) -> ExportJob | None:
    job = ExportJob.objects.filter(pk=job_id).first()
    if job is None:  # deleted (expired) before its task ran
        return None
    if job.status == ExportJob.Status.DONE and _stored(job):
        return job
    ExportJob.objects.filter(pk=job_id).update(
        status=ExportJob.Status.RUNNING, error="", progress=0, total=0, step="", progress_log=[]
    )
    try:
        study = Study.objects.get(pk=job.params["study_id"])
        with tempfile.TemporaryDirectory(prefix="teamllm-export-") as tmp:
            folder = Path(tmp)
            if job.kind == KIND_RESULTS:
                path, name = _results(job, study, folder)
            elif job.kind in LONG_KINDS:
                path, name = _long_table(job, study, folder)
            elif job.kind == KIND_RELEASE_WORKBOOKS:
                path, name = _release_workbooks(job, study, folder)
            else:
                path, name = _workbooks(job, study, folder)
            _file_store(job, path, name)
    except Exception as exc:
        log.exception("export job %s failed", job_id)
        ExportJob.objects.filter(pk=job_id).update(
            status=ExportJob.Status.FAILED, error=str(exc)[:2000], finished_at=timezone.now()
        )
        return ExportJob.objects.filter(pk=job_id).first()
    ExportJob.objects.filter(pk=job_id).update(
        status=ExportJob.Status.DONE, file=job.file.name, file_name=name, finished_at=timezone.now()
    )
    return ExportJob.objects.filter(pk=job_id).first()


def _file_store(job: ExportJob, path: Path, name: str) -> None:
    """Save the built file to the storage. A storage that cannot be reached (an object store that
    is down, a full disk) fails the job with a message that says so; the data are unchanged and
    the export can be started again."""
    try:
        if job.file:  # a redelivered job: replace what an earlier attempt stored
            job.file.delete(save=False)
        with path.open("rb") as handle:
            job.file.save(name, File(handle, name=name), save=False)
    except Exception as exc:
        raise ExportStorageError(f"{STORAGE_ERROR_PREFIX}{exc}") from exc


def exports_expired_delete(*, now: datetime | None = None) -> int:
    """Delete the jobs that finished more than ``EXPORT_RETENTION_DAYS`` ago (and those
    that never finished in that time), with their files. 0 days keeps everything.
    Several workers may run it at once: each job is locked by one of them."""
    days = float(settings.EXPORT_RETENTION_DAYS)
    if days <= 0:
        return 0
    cutoff = (now or timezone.now()) - timedelta(days=days)
    expired = ExportJob.objects.filter(
        Q(finished_at__lt=cutoff) | Q(finished_at__isnull=True, created_at__lt=cutoff)
    ).values_list("pk", flat=True)
    deleted = 0
    for pk in list(expired):
        with transaction.atomic():
            job = ExportJob.objects.select_for_update(skip_locked=True).filter(pk=pk).first()
            if job is None:
                continue
            if job.file:
                _file_delete(job)
            job.delete()
            deleted += 1
    if deleted:
        log.info("deleted %d expired export(s)", deleted)
    return deleted


def _file_delete(job: ExportJob) -> None:
    storage, name = job.file.storage, job.file.name
    storage.delete(name)
    with contextlib.suppress(NotImplementedError, OSError):  # local storage: its empty folder too
        Path(storage.path(name)).parent.rmdir()


def _results(job: ExportJob, study: Study, folder: Path) -> tuple[Path, str]:
    params = job.params
    pair = tuple(params["pair"]) if params.get("pair") else None
    # the total is known once the results say which tables there are; the results page
    # has usually computed (and cached) the same results for this data version already
    results = results_cached_get(
        study=study,
        conditions=params.get("conditions") or None,
        models=params.get("models") or None,
        pair=pair,
        marks=params.get("marks") or MARKS_PAPER,
    )
    name = f"results_{_slug(study.name)}.xlsx"
    last_step = ""

    def on_step(done: int, total: int, step: str) -> None:
        nonlocal last_step
        # each sheet as it starts, the raw table every PROGRESS_EVERY sheets, and the end
        if step != last_step or done % PROGRESS_EVERY == 0 or done == total:
            _progress(job.pk, done, total, step)
        last_step = step

    # the About sheet names each condition as the exporting researcher's pages do (their language,
    # a lab's own name as typed); the data columns keep the letters and the headers stay English
    with translation.override(params.get("language") or settings.LANGUAGE_CODE):
        names = condition_names_get()
    results_workbook_write(results, folder / name, condition_names=names, progress=on_step)
    return folder / name, name


def _workbooks(job: ExportJob, study: Study, folder: Path) -> tuple[Path, str]:
    name = f"workbooks_{_slug(study.name)}.zip"
    written = workbooks_zip_write(
        study=study, path=folder / name, progress=lambda n, t: _progress(job.pk, n, t)
    )
    _progress(job.pk, written, written)
    return folder / name, name


def _release_workbooks(job: ExportJob, study: Study, folder: Path) -> tuple[Path, str]:
    """Every submitted sheet in the release's Excel layout, one workbook per rater and scenario, zipped."""
    name = f"release_workbooks_{_slug(study.name)}.zip"
    files = release_workbooks_write(release_sheets_get(study=study), folder / "release")
    with zipfile.ZipFile(folder / name, "w", zipfile.ZIP_DEFLATED) as archive:
        for done, path in enumerate(files, start=1):
            archive.write(path, arcname=path.name)
            _progress(job.pk, done, len(files))
    return folder / name, name


def _long_table(job: ExportJob, study: Study, folder: Path) -> tuple[Path, str]:
    table, fmt = job.kind.split("_")
    name = f"{table}_{_slug(study.name)}.{fmt}"
    header: tuple[str, ...]
    if table == "items":
        header, title = ITEM_HEADER, "Item scores"
        total = item_sheets_count(study=study)
        rows = item_rows_iter(study=study, on_sheet=lambda n: _progress(job.pk, n, total))
    else:
        header, title = TURN_HEADER, "Generation turns"
        total = turn_rows_count(study=study)
        rows = turn_rows_iter(study=study)
    _progress(job.pk, 0, total)
    if fmt == "csv":
        long_csv_write(folder / name, header, rows)
    else:
        long_xlsx_write(folder / name, header, rows, title=title)
    _progress(job.pk, total, total)
    return folder / name, name

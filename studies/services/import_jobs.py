"""Response imports run by a worker: a file of more than ``IMPORT_IN_REQUEST_MAX`` records is
recorded as a job (its task sent after commit through the outbox) and read there, all or nothing,
as an import in the request would be; the admin's page polls the job's progress."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import F
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from core.tasks.outbox import outbox_pending_subjects, task_send_on_commit
from studies.models import ResponseImportJob, Study, TaskKind
from studies.response_files import RecordError, RecordProblems, records_from_text
from studies.selectors import responses_without_pair
from studies.services.pairs import pairs_import_refused
from studies.services.responses import ImportReport, responses_import

if TYPE_CHECKING:
    from django.contrib.auth.models import User

log = logging.getLogger(__name__)

IMPORT_TASK = "studies.tasks.response_import_job_run_task"  # sent by name: services never import tasks
# More records than this, or a larger file, go to a worker: 300 records of ordinary length take
# about 10 s in the request, well inside a proxy's 60 s; the blind-text check costs up to about
# 16 s a MB of hostile text (bench/bench_blind_text.py; a 1.89 MB file held a request 27.5 s in
# hostile pass 18), so 256 KB stay near 4 s whatever the records hold
IMPORT_IN_REQUEST_MAX = 300
IMPORT_IN_REQUEST_MAX_BYTES = 256 * 1024
CONFLICT_MESSAGE = gettext_noop(
    "Another import changed this study at the same time, so nothing of this file was imported. "
    "Import it again: what the other import added is then left as it is."
)


class ImportConflict(RecordError):
    """Another import added the same responses or scenarios at the same time (a double submit):
    nothing of this file was imported."""

    def __init__(self) -> None:
        super().__init__("file", "records", _(CONFLICT_MESSAGE))

    def __str__(self) -> str:
        return self.message


def response_import_job_create(
    *,
    study: Study,
    content: str,
    create_missing: bool,
    actor: User | None,
    source: str,
    language: str,
) -> ResponseImportJob:
    """Record the job and its task together (sent after commit, or by a worker's sweep once the
    broker answers)."""
    with transaction.atomic():
        job = ResponseImportJob.objects.create(
            study=study,
            content=content,
            create_missing=create_missing,
            created_by=actor,
            source=source,
            language=language,
        )
        task_send_on_commit(name=IMPORT_TASK, args=(job.pk,))
    return job


def responses_import_or_queue(
    *,
    study: Study,
    text: str,
    create_missing: bool,
    actor: User | None,
    source: str,
    language: str,
) -> ImportReport | ResponseImportJob:
    """The import pages' and the API's one path: the file imported at once (its report), or, past
    ``IMPORT_IN_REQUEST_MAX`` records or ``IMPORT_IN_REQUEST_MAX_BYTES``, recorded as a job for a
    worker. Raises ``RecordError`` (and ``RecordProblems``) for a file refused in the request, and
    ``ImportConflict`` when another import added the same responses at the same time."""
    pairs_import_refused(study=study)
    records = records_from_text(text, text_task=study.task_kind == TaskKind.TEXT)
    if len(records) > IMPORT_IN_REQUEST_MAX or len(text.encode()) > IMPORT_IN_REQUEST_MAX_BYTES:
        if own := [problem for record in records for problem in record.problems]:
            raise RecordProblems(own)  # what the file itself gets wrong (a line not JSON): said at once
        return response_import_job_create(
            study=study,
            content=text,
            create_missing=create_missing,
            actor=actor,
            source=source,
            language=language,
        )
    try:
        return responses_import(
            records=records, study=study, create_missing=create_missing, actor=actor, source=source
        )
    except IntegrityError as exc:  # a double submit, or two admins importing the same file at once
        raise ImportConflict from exc


def response_import_job_dispatch_pending(*, job: ResponseImportJob) -> bool:
    """A queued job whose task the broker has not taken yet (it was away)."""
    return job.pk in outbox_pending_subjects(name=IMPORT_TASK)


def responses_import_warnings(*, study: Study, report: ImportReport) -> list[str]:
    """What an import's admin should know beyond its summary: responses held, responses no rater
    pair will get."""
    warnings = list(report.warnings)
    if report.held:
        warnings.append(
            ngettext(
                "%(n)d new response is held for review: %(ids)s. "
                "No rater gets it until it is released on the held responses page.",
                "%(n)d new responses are held for review: %(ids)s. "
                "No rater gets them until they are released on the held responses page.",
                len(report.held),
            )
            % {"n": len(report.held), "ids": "; ".join(report.held_texts(20))}
        )
    if unpaired := responses_without_pair(study=study, research_ids=report.created):
        # the new responses' scenario and condition have no pair: say so, where to fix it
        warnings.append(
            ngettext(
                "%(n)d new response has no rater pair (its scenario and condition have none): "
                "%(ids)s. Assign a pair on the study's page.",
                "%(n)d new responses have no rater pair (their scenario and condition have none): "
                "%(ids)s. Assign a pair on the study's page.",
                len(unpaired),
            )
            % {"n": len(unpaired), "ids": ", ".join(unpaired[:20])}
        )
    return warnings


def import_report_result(report: ImportReport) -> dict[str, object]:
    """An import's outcome as the API gives it."""
    return {
        "summary": report.summary(),
        "created": report.created,
        "unchanged": report.unchanged,
        "held": report.held,
        # why each was held: [{"code": "blind_text", "step": 2, "terms": [...]}, ...]
        "held_reasons": {rid: report.hold_reasons.get(rid, []) for rid in report.held},
        "created_objects": report.created_objects,
        "warnings": [str(w) for w in report.warnings],
    }


def _progress(job_id: int, done: int, total: int) -> None:
    # while the records are checked, before the import's transaction: the page polls it
    ResponseImportJob.objects.filter(pk=job_id, status=ResponseImportJob.Status.RUNNING).update(
        progress=done, total=total
    )


def _finish(job_id: int, **outcome: object) -> None:
    """The job's outcome, once: a copy of the task that ran beside it changes nothing after."""
    finished = (ResponseImportJob.Status.DONE, ResponseImportJob.Status.FAILED)
    ResponseImportJob.objects.filter(pk=job_id).exclude(status__in=finished).update(
        content="", finished_at=timezone.now(), **outcome
    )


class _Superseded(Exception):
    """Another run of the same job holds it, or has finished it: this one's import is rolled back."""


def response_import_job_run(*, job_id: int) -> ResponseImportJob | None:
    """Read the job's file and import it (the task). The job is marked done in the import's own
    transaction, so it is done exactly when its responses are in: a worker killed at any point
    leaves either both or neither, and the redelivered task starts again. A copy of the task running
    beside it (a redelivery while it runs) stops at the job's row lock, its import rolled back."""
    job = ResponseImportJob.objects.select_related("study", "created_by").filter(pk=job_id).first()
    if job is None or job.status in (ResponseImportJob.Status.DONE, ResponseImportJob.Status.FAILED):
        return job
    ResponseImportJob.objects.filter(pk=job_id, status=ResponseImportJob.Status.QUEUED).update(
        status=ResponseImportJob.Status.RUNNING
    )

    def imported(report: ImportReport) -> None:
        try:
            locked = ResponseImportJob.objects.select_for_update(nowait=True).get(pk=job_id)
        except DatabaseError as exc:  # the other run holds it
            raise _Superseded from exc
        if locked.status in (ResponseImportJob.Status.DONE, ResponseImportJob.Status.FAILED):
            raise _Superseded
        _finish(
            job_id,
            status=ResponseImportJob.Status.DONE,
            progress=F("total"),
            summary=report.summary(),
            warnings=responses_import_warnings(study=job.study, report=report),
            result=import_report_result(report),
        )

    with translation.override(job.language):
        try:
            responses_import(
                records=records_from_text(job.content, text_task=job.study.task_kind == TaskKind.TEXT),
                study=job.study,
                create_missing=job.create_missing,
                actor=job.created_by,
                source=job.source,
                progress=lambda done, total: _progress(job_id, done, total),
                on_imported=imported,
            )
        except _Superseded:
            pass
        except RecordProblems as exc:
            _finish(job_id, status=ResponseImportJob.Status.FAILED, problems=exc.problems)
        except RecordError as exc:
            _finish(job_id, status=ResponseImportJob.Status.FAILED, problems=[str(exc)])
        except IntegrityError:  # another import added the same responses or scenarios meanwhile
            _finish(
                job_id,
                status=ResponseImportJob.Status.FAILED,
                error=_(CONFLICT_MESSAGE),
            )
        except Exception as exc:  # a fault of ours or the database's: nothing imported, said so
            log.exception("response import job %s failed", job_id)
            _finish(
                job_id,
                status=ResponseImportJob.Status.FAILED,
                error=_("The import failed: %(e)s") % {"e": exc},
            )
    return ResponseImportJob.objects.filter(pk=job_id).first()

"""``/api/v1/`` response import (read-write token of an admin): the import page's service,
all-or-nothing, every problem listed; a large file as the page's, by a worker, with a status URL."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Field, Status

from api.views.auth import caller
from api.views.bodies import JsonBody
from api.views.v1 import api, study_for
from core.accounts.roles import is_admin
from studies.models import ResponseImportJob
from studies.response_files import RecordError, RecordProblems
from studies.services.import_jobs import ImportConflict, import_report_result, responses_import_or_queue


class ResponsesIn(JsonBody):
    content: str = Field(
        description=(
            "the file as the import page takes it: the study's data_A.json format, or JSON Lines "
            "(research_id, scenario, model, condition, steps)"
        )
    )
    create_missing: bool = False


@api.post(
    "/studies/{study_id}/responses/import",
    response={201: dict, 202: dict, 400: dict, 403: dict, 409: dict},
    summary="Import responses, all or nothing (admins)",
    description=(
        "A file of up to 300 records and 2 MB is imported at once (201, the outcome). A larger one is "
        "imported by a worker (202, the job's status URL: poll it until its status is done or failed). "
        "409: another import added the same responses at the same time; nothing was imported."
    ),
)
def responses_import_api(request: HttpRequest, study_id: int, body: ResponsesIn):
    if not is_admin(caller(request)):
        return Status(403, {"detail": "responses are imported by admins"})
    study = study_for(request, study_id)
    try:
        outcome = responses_import_or_queue(
            study=study,
            text=body.content,
            create_missing=body.create_missing,
            actor=caller(request),
            source="API",
            language="en",
        )
    except ImportConflict as exc:
        return Status(409, {"detail": "nothing was imported", "problems": [str(exc)]})
    except RecordProblems as exc:
        return Status(400, {"detail": "nothing was imported", "problems": [str(p) for p in exc.problems]})
    except RecordError as exc:
        return Status(400, {"detail": "nothing was imported", "problems": [str(exc)]})
    if isinstance(outcome, ResponseImportJob):
        return Status(202, _job_status(outcome))
    return Status(201, import_report_result(outcome))


@api.get(
    "/studies/{study_id}/responses/import/jobs/{job_id}",
    response={200: dict, 403: dict, 404: dict},
    summary="A response import run by a worker: its status, progress and outcome (admins)",
)
def responses_import_job_api(request: HttpRequest, study_id: int, job_id: int):
    if not is_admin(caller(request)):
        return Status(403, {"detail": "responses are imported by admins"})
    study = study_for(request, study_id)
    job = ResponseImportJob.objects.filter(pk=job_id, study=study).first()
    if job is None:
        return Status(404, {"detail": "no such import job in this study"})
    return Status(200, _job_status(job))


def _job_status(job: ResponseImportJob) -> dict[str, object]:
    status: dict[str, object] = {
        "job": job.pk,
        "status": job.status,
        "progress": job.progress,
        "total": job.total,
        "status_url": f"/api/v1/studies/{job.study_id}/responses/import/jobs/{job.pk}",
    }
    if job.status == ResponseImportJob.Status.DONE:
        status["result"] = job.result
    elif job.status == ResponseImportJob.Status.FAILED:
        status["detail"] = "nothing was imported"
        status["problems"] = job.problems or [job.error]
    return status

"""``/api/v1/`` writes (read-write tokens): export jobs, through the research page's own
export engine (``research.services.exports``), with the page's rules (offline workbooks for
admins only)."""

from __future__ import annotations

from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest, JsonResponse
from ninja import Field, Status
from pydantic import field_validator

from api.views.auth import caller, token_study_id
from api.views.bodies import JsonBody
from api.views.v1 import api, study_for
from core.accounts.roles import is_admin
from research.models import KIND_RESULTS, KIND_WORKBOOKS, KINDS, ExportJob
from research.selectors.exports import export_job_visible
from research.services.downloads import ExportFileMissing, ExportStorageUnavailable, export_file_open
from research.services.exports import ExportLimit, ExportParamsError, export_job_create
from research.significance import MARKS_BOTH, MARKS_PAPER


class ExportIn(JsonBody):
    kind: str = Field(KIND_RESULTS, description=f"one of {', '.join(KINDS)}")
    study: int
    conditions: list[str] = []
    models: list[str] = []
    a: str = ""
    b: str = ""
    marks: str = MARKS_PAPER
    # the About sheet's condition names, as the research page's language gives them there
    language: str = Field(
        "en", description="the About sheet's language: one of settings.LANGUAGES (en, zh-hans)"
    )

    @field_validator("language")
    @classmethod
    def _a_product_language(cls, value: str) -> str:
        codes = [code for code, _name in settings.LANGUAGES]
        if value not in codes:
            raise ValueError(f"one of {', '.join(codes)}")
        return value


def _job(request: HttpRequest, job_id: int) -> ExportJob:
    job = export_job_visible(job_id=job_id, user=caller(request))  # another researcher's: not found
    if job is None:
        raise Http404
    limited = token_study_id(request)
    if limited is not None and (job.params or {}).get("study_id") != limited:
        raise Http404
    return job


def _job_json(request: HttpRequest, job: ExportJob) -> dict:
    done = job.status == ExportJob.Status.DONE and bool(job.file)
    return {
        "id": job.pk,
        "kind": job.kind,
        "status": job.status,
        "progress": job.progress,
        "total": job.total,
        "step": job.step,
        "error": job.error,
        "file_name": job.file_name,
        "download": f"/api/v1/exports/{job.pk}/download" if done else None,
    }


@api.post("/exports", response={201: dict, 400: dict, 403: dict, 429: dict}, summary="Start an export job")
def export_start(request: HttpRequest, body: ExportIn):
    if body.kind not in KINDS:
        return Status(400, {"detail": f"unknown export kind; one of {', '.join(KINDS)}"})
    if body.kind == KIND_WORKBOOKS and not is_admin(caller(request)):
        return Status(403, {"detail": "offline workbooks are exported by admins"})
    study = study_for(request, body.study)
    params: dict = {"study_id": study.pk}
    if body.kind == KIND_RESULTS:
        params.update(
            pair=[body.a, body.b] if body.a and body.b and body.a != body.b else None,
            conditions=body.conditions,
            models=body.models,
            marks=MARKS_BOTH if body.marks == MARKS_BOTH else MARKS_PAPER,
            language=body.language,
        )
    try:
        job = export_job_create(kind=body.kind, params=params, user=caller(request))
    except ExportLimit as exc:
        detail = f"you have {exc.limit} exports waiting or running: start another when one is done"
        return Status(429, {"detail": detail})
    except ExportParamsError as exc:
        return Status(400, {"detail": str(exc)})
    return Status(201, _job_json(request, job))


@api.get("/exports/{job_id}", summary="An export job's state and progress")
def export_poll(request: HttpRequest, job_id: int) -> dict:
    return _job_json(request, _job(request, job_id))


@api.get("/exports/{job_id}/download", summary="The finished export's file", response={200: None})
def export_download(request: HttpRequest, job_id: int):
    job = _job(request, job_id)
    try:
        handle = export_file_open(job=job)
    except ExportFileMissing as exc:
        raise Http404 from exc
    except ExportStorageUnavailable as exc:
        unavailable = JsonResponse({"detail": f"{exc}; the export is kept: try again later"}, status=503)
        unavailable["Retry-After"] = str(exc.retry_after)
        return unavailable
    response = FileResponse(handle, as_attachment=True, filename=job.file_name)
    response["Cache-Control"] = "no-store"
    return response

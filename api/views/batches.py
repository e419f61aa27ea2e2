"""``/api/v1/`` generation and judge batches for admins: start (validated by the launch pages'
own forms, made by their services), poll (the batch pages' progress selectors) and cancel
(their services)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from django import forms
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from ninja import Status

from api.views.auth import caller, token_study_id
from api.views.bodies import JsonBody
from api.views.v1 import api, study_for
from core.accounts.roles import is_admin, is_admin_or_researcher
from generation.forms import BatchForm
from generation.models import GenerationBatch
from generation.selectors import BatchProgress, batch_progress
from generation.services.batches import BatchError, batch_cancel
from generation.tasks import run_advance_send
from judging.forms import BatchLaunchForm
from judging.models import JudgeBatch
from judging.selectors.batches import batch_progress_get
from judging.services.runs import BatchError as JudgeBatchError
from judging.services.runs import judge_batch_cancel, judge_batch_launch

if TYPE_CHECKING:
    from core.accounts.requests import AuthenticatedHttpRequest


def _on_batch(
    request: HttpRequest,
    model,
    batch_id: int,
    answer: Callable[[Any], dict],
    allowed: Callable[[Any], bool] = is_admin,
) -> Status:
    """200 with ``answer(batch)``, for whom ``allowed`` (admins unless said: 403 otherwise), as on
    the batch's page; 404 for an unknown batch or one outside a study-limited token's study."""
    if not allowed(caller(request)):
        return Status(403, DENIED)
    batch = get_object_or_404(model, pk=batch_id)
    limited = token_study_id(request)
    if limited is not None and batch.study_id != limited:
        raise Http404
    return Status(200, answer(batch))


def _progress(progress: BatchProgress) -> dict:
    batch = progress.batch
    return {
        "id": batch.pk,
        "status": batch.status,
        "active": progress.active,
        "percent": progress.percent,
        "calls_done": progress.calls_done,
        "calls_total": progress.calls_total,
        "counts": progress.counts,
        "tokens": progress.tokens,
        "jobs": [{"id": p.run.pk, "status": p.run.status, "percent": p.percent} for p in progress.runs],
    }


# who may start, poll and cancel each kind of batch: as on its pages (hostile pass 16: the judges'
# page let researchers launch, the API did not)
DENIED = {"detail": "generation batches are run by admins (judge batches by admins and researchers)"}


class GenerationBatchIn(JsonBody):
    study: int
    scenarios: list[int]
    endpoints: list[int]
    conditions: list[int]
    name: str = ""
    top_p: str = "paper"
    regenerate_withdrawn: bool = False


class JudgeBatchIn(JsonBody):
    study: int
    judge: int
    scenario: str = ""
    samples: int | None = None


def _invalid(form: forms.Form) -> Status:
    """400 with every problem the launch page would show, one line each."""
    problems = [
        f"{field}: {error['message']}" if field != "__all__" else error["message"]
        for field, errors in form.errors.get_json_data().items()
        for error in errors
    ]
    return Status(400, {"detail": "the batch was not started", "problems": problems})


F = TypeVar("F", bound=forms.Form)


def _start(
    request: HttpRequest,
    study_id: int,
    form_for: Callable[[str], F],
    launch: Callable[[F], dict],
    refusals: tuple[type[Exception], ...],
    allowed: Callable[[Any], bool] = is_admin,
) -> Status:
    """For whom ``allowed`` (admins unless said: 403 otherwise), as on the launch page: the study (404 outside a study-limited token's study),
    the launch page's form for it (``form_for`` gets the study's id), validated, then the launch
    through its service: 201 with the batch's progress, or 400 with every problem."""
    if not allowed(caller(request)):
        return Status(403, DENIED)
    form = form_for(str(study_for(request, study_id).pk))
    if not form.is_valid():
        return _invalid(form)
    try:
        return Status(201, launch(form))
    except refusals as exc:
        return Status(400, {"detail": "the batch was not started", "problems": [str(exc)]})


@api.post(
    "/generation/batches",
    response={201: dict, 400: dict, 403: dict},
    summary="Start a generation batch (admins): one run per scenario, model and condition",
)
def generation_batch_start(request: HttpRequest, body: GenerationBatchIn):
    ids = {key: [str(pk) for pk in getattr(body, key)] for key in ("scenarios", "endpoints", "conditions")}

    def form_for(study: str) -> BatchForm:
        return BatchForm(
            data={
                "study": study,
                **ids,
                "name": body.name,
                "top_p": body.top_p,
                "regenerate_withdrawn": body.regenerate_withdrawn,
            }
        )

    def launch(form: BatchForm) -> dict:
        made = form.launch(actor=caller(request), enqueue=run_advance_send)
        return {**_progress(batch_progress(made.batch)), "skipped": list(made.skipped)}

    return _start(request, body.study, form_for, launch, (BatchError,))


@api.post(
    "/judge/batches",
    response={201: dict, 400: dict, 403: dict},
    summary="Start a judge batch (admins and researchers): the judge scores the study's responses",
)
def judge_batch_start(request: HttpRequest, body: JudgeBatchIn):
    samples = "" if body.samples is None else str(body.samples)

    def form_for(study: str) -> BatchLaunchForm:
        return BatchLaunchForm(
            data={"study": study, "judge": str(body.judge), "scenario": body.scenario, "samples": samples}
        )

    def launch(form: BatchLaunchForm) -> dict:
        data = form.cleaned_data
        batch = judge_batch_launch(
            study=data["study"],
            judge=data["judge"],
            scenario=data["scenario_obj"],
            samples=data["samples"],
            actor=caller(request),
        )
        return _progress(batch_progress_get(batch=batch))

    return _start(request, body.study, form_for, launch, (JudgeBatchError,), allowed=is_admin_or_researcher)


@api.get(
    "/generation/batches/{batch_id}",
    response={200: dict, 403: dict},
    summary="A generation batch's progress (admins)",
)
def generation_batch(request: HttpRequest, batch_id: int):
    return _on_batch(request, GenerationBatch, batch_id, lambda batch: _progress(batch_progress(batch)))


@api.post(
    "/generation/batches/{batch_id}/cancel",
    response={200: dict, 403: dict},
    summary="Cancel a generation batch (admins)",
)
def generation_batch_cancel(request: AuthenticatedHttpRequest, batch_id: int):
    return _on_batch(
        request,
        GenerationBatch,
        batch_id,
        lambda batch: {"cancelled": batch_cancel(batch_id=batch.pk, actor=request.user)},
    )


@api.get(
    "/judge/batches/{batch_id}",
    response={200: dict, 403: dict},
    summary="A judge batch's progress (admins and researchers)",
)
def judge_batch(request: HttpRequest, batch_id: int):
    return _on_batch(
        request,
        JudgeBatch,
        batch_id,
        lambda batch: _progress(batch_progress_get(batch=batch)),
        allowed=is_admin_or_researcher,
    )


@api.post(
    "/judge/batches/{batch_id}/cancel",
    response={200: dict, 403: dict},
    summary="Cancel a judge batch (admins and researchers)",
)
def judge_batch_cancel_api(request: AuthenticatedHttpRequest, batch_id: int):
    return _on_batch(
        request,
        JudgeBatch,
        batch_id,
        lambda batch: {"cancelled": judge_batch_cancel(batch=batch, actor=request.user)},
        allowed=is_admin_or_researcher,
    )

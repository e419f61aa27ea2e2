"""``/api/v1/`` generation and judge batches for admins: poll (the batch pages' progress
selectors) and cancel (their services). Starting a batch stays on its page for now."""

from __future__ import annotations

from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from ninja import Status

from api.views.auth import caller, token_study_id
from api.views.v1 import api
from core.accounts.roles import is_admin
from generation.models import GenerationBatch
from generation.selectors import BatchProgress, batch_progress
from generation.services.batches import batch_cancel
from judging.models import JudgeBatch
from judging.selectors.batches import batch_progress_get
from judging.services.runs import judge_batch_cancel


def _admin_batch(request: HttpRequest, model, batch_id: int):
    """The batch, for admins only (403 otherwise), and 404 outside a study-limited token's study."""
    if not is_admin(caller(request)):
        return None
    batch = get_object_or_404(model, pk=batch_id)
    limited = token_study_id(request)
    if limited is not None and batch.study_id != limited:
        raise Http404
    return batch


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


DENIED = {"detail": "batches are run by admins"}


@api.get(
    "/generation/batches/{batch_id}",
    response={200: dict, 403: dict},
    summary="A generation batch's progress (admins)",
)
def generation_batch(request: HttpRequest, batch_id: int):
    batch = _admin_batch(request, GenerationBatch, batch_id)
    return Status(403, DENIED) if batch is None else Status(200, _progress(batch_progress(batch)))


@api.post(
    "/generation/batches/{batch_id}/cancel",
    response={200: dict, 403: dict},
    summary="Cancel a generation batch (admins)",
)
def generation_batch_cancel(request: HttpRequest, batch_id: int):
    batch = _admin_batch(request, GenerationBatch, batch_id)
    if batch is None:
        return Status(403, DENIED)
    return Status(200, {"cancelled": batch_cancel(batch_id=batch.pk)})


@api.get(
    "/judge/batches/{batch_id}", response={200: dict, 403: dict}, summary="A judge batch's progress (admins)"
)
def judge_batch(request: HttpRequest, batch_id: int):
    batch = _admin_batch(request, JudgeBatch, batch_id)
    return Status(403, DENIED) if batch is None else Status(200, _progress(batch_progress_get(batch=batch)))


@api.post(
    "/judge/batches/{batch_id}/cancel",
    response={200: dict, 403: dict},
    summary="Cancel a judge batch (admins)",
)
def judge_batch_cancel_api(request: HttpRequest, batch_id: int):
    batch = _admin_batch(request, JudgeBatch, batch_id)
    if batch is None:
        return Status(403, DENIED)
    return Status(200, {"cancelled": judge_batch_cancel(batch=batch)})

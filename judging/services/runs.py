"""How judge batches run: one Celery task per response (``judging.task_run``), resumable.

A task, holding its own lease (a cross-worker semaphore of one, renewed by the
generation keeper while the worker lives), makes the judge's calls in order: for
each sample, attempt 1, and attempt 2 (the re-ask with the validation errors) if
attempt 1 was invalid. Every finished call is persisted at once (unique per task,
sample and attempt) and replayed on a resume, so a worker that dies mid-batch never
repeats a finished call. Each provider call takes a slot of the endpoint's
concurrency limit and goes through ``core.llm.client.chat_complete`` (retries, rate
limits with Retry-After, timeouts). When every sample is valid the sheet is stored
(``judge_sheet_store``) and the task succeeds; an answer still invalid after the
re-ask, or a provider error, fails the task with its reason.

``heartbeat_at`` is refreshed before every provider attempt; a running task whose
heartbeat is stale and whose lease is free lost its worker, and
:func:`judge_tasks_resume_stale` (every worker runs it) queues it again.
"""

from __future__ import annotations

import logging
import random
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.llm import leases
from core.llm.client import LLMError, chat_complete, redact_credentials
from core.tasks.outbox import task_send_on_commit
from judging.answer import answer_check, answer_schema, samples_combine
from judging.models import Judge, JudgeBatch, JudgeBatchStatus, JudgeCall, JudgeTask, JudgeTaskStatus
from judging.prompt import judge_messages, reask_messages
from judging.selectors.responses import response_view_get, responses_to_judge
from judging.services.sheets import judge_sheet_store
from scoring.services.sheets import SheetError
from studies.models import Scenario, Study
from studies.rubric import load_rubric

logger = logging.getLogger(__name__)

JUDGE_TASK = "judging.task_run"
ACTIVE = (JudgeTaskStatus.QUEUED, JudgeTaskStatus.RUNNING)
TASK_LOCK_WAIT_SECONDS = 2.0


class BatchError(ValueError):
    """A batch cannot be launched as asked; the message is for the user."""


def task_key(task_id: int) -> str:
    return f"judgetask:{task_id}"


def judge_task_enqueue(*, task_id: int, countdown: float | None = None) -> None:
    """Recorded in the caller's transaction (the task outbox) and sent after its commit."""
    task_send_on_commit(name=JUDGE_TASK, args=(task_id,), countdown=countdown)


def judge_batch_launch(
    *,
    study: Study,
    judge: Judge,
    scenario: Scenario | None = None,
    samples: int | None = None,
    actor=None,
) -> JudgeBatch:
    """A batch over the study's (or one scenario's) responses, one task per response,
    each task queued through the outbox with the batch's commit."""
    samples = judge.samples if samples is None else samples
    if not 1 <= samples <= 10:
        raise BatchError("Samples per response must be between 1 and 10.")
    if not judge.endpoint.base_url:
        raise BatchError(f"Endpoint {judge.endpoint.name} has no base URL.")
    responses = list(responses_to_judge(study=study, scenario=scenario))
    if not responses:
        raise BatchError(
            f"Study {study.name} has no responses to judge" + (f" in {scenario.code}." if scenario else ".")
        )
    with transaction.atomic():
        batch = JudgeBatch.objects.create(
            study=study,
            judge=judge,
            scenario=scenario,
            prompt_version=judge.prompt_version,
            temperature=judge.temperature,
            samples=samples,
            created_by=actor,
        )
        tasks = JudgeTask.objects.bulk_create(JudgeTask(batch=batch, response=r) for r in responses)
        for task in tasks:
            judge_task_enqueue(task_id=task.pk)
    return batch


# --- one task ---------------------------------------------------------------------


def _request_params(batch: JudgeBatch, schema: dict[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = {"temperature": batch.temperature}
    if batch.judge.structured_output:
        params["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "cgpst_sheet", "strict": True, "schema": schema},
        }
    return params


def _finish(task_id: int, status: str, error: str = "", sheet=None) -> None:
    JudgeTask.objects.filter(pk=task_id, status__in=ACTIVE).update(
        status=status,
        error=redact_credentials(error)[:20000],
        sheet=sheet,
        finished_at=timezone.now(),
        heartbeat_at=None,
    )
    batch_id = JudgeTask.objects.filter(pk=task_id).values_list("batch_id", flat=True).first()
    if batch_id:
        judge_batch_refresh(batch_id=batch_id)


def _beat(task_id: int) -> None:
    JudgeTask.objects.filter(pk=task_id, status=JudgeTaskStatus.RUNNING).update(heartbeat_at=timezone.now())


def judge_task_run(*, task_id: int) -> str:
    """Run (or resume) one judge task; idempotent. Returns what happened:
    succeeded | failed | cancelled | inactive | busy | waiting | gone."""
    lease = leases.acquire(task_key(task_id), 1, wait=TASK_LOCK_WAIT_SECONDS)
    if lease is None:
        return "busy"  # another worker runs it
    try:
        return _run_locked(task_id)
    except Exception as exc:
        logger.exception("judge task %s crashed", task_id)
        _finish(task_id, JudgeTaskStatus.FAILED, f"Internal error: {type(exc).__name__}: {exc}")
        return "failed"
    finally:
        leases.release(lease)


def _run_locked(task_id: int) -> str:
    task = (
        JudgeTask.objects.select_related("batch__judge__endpoint", "response__scenario", "response__study")
        .filter(pk=task_id)
        .first()
    )
    if task is None:
        return "gone"
    if task.status not in ACTIVE:
        return "inactive"
    batch = task.batch
    if batch.status == JudgeBatchStatus.CANCELLED:
        _finish(task_id, JudgeTaskStatus.CANCELLED)
        return "cancelled"
    now = timezone.now()
    JudgeTask.objects.filter(pk=task_id).update(
        status=JudgeTaskStatus.RUNNING,
        attempts=task.attempts + 1,
        started_at=task.started_at or now,
        heartbeat_at=now,
    )
    rubric = load_rubric(task.response.study.rubric_version)
    view = response_view_get(response=task.response)
    shape = view.shape(rubric)
    first_messages = judge_messages(version=batch.prompt_version, rubric=rubric, view=view)
    params = _request_params(batch, answer_schema(shape))
    calls = {(c.sample, c.attempt): c for c in JudgeCall.objects.filter(task_id=task_id)}
    valid: list[dict[str, Any]] = []
    for sample in range(1, batch.samples + 1):
        first, second = calls.get((sample, 1)), calls.get((sample, 2))
        if first is None:
            outcome = _call(task, sample, 1, first_messages, params, shape)
            if isinstance(outcome, str):
                return outcome
            first = outcome
        if first.is_valid:
            valid.append(first.parsed or {})
            continue
        if second is None:
            messages = reask_messages(first_messages, first.raw_output, first.errors)
            outcome = _call(task, sample, 2, messages, params, shape)
            if isinstance(outcome, str):
                return outcome
            second = outcome
        if not second.is_valid:
            reason = f"Sample {sample}: the answer was invalid twice; last problems: " + "; ".join(
                second.errors
            )
            _finish(task_id, JudgeTaskStatus.FAILED, reason)
            return "failed"
        valid.append(second.parsed or {})
    combined = samples_combine(shape, valid)
    if not combined.ok:
        _finish(
            task_id,
            JudgeTaskStatus.FAILED,
            "The combined samples are not a valid sheet: " + "; ".join(combined.errors),
        )
        return "failed"
    note = f"LLM judge {batch.judge.name}, batch {batch.pk}, prompt {batch.prompt_version}, T={batch.temperature:g}, k={batch.samples}"
    try:
        with transaction.atomic():
            locked = JudgeTask.objects.select_for_update().get(pk=task_id)
            if locked.status not in ACTIVE:
                return "inactive"
            sheet = judge_sheet_store(
                judge=batch.judge, response=task.response, values=combined.values, note=note
            )
            locked.status, locked.sheet, locked.error = JudgeTaskStatus.SUCCEEDED, sheet, ""
            locked.finished_at, locked.heartbeat_at = timezone.now(), None
            locked.save(update_fields=["status", "sheet", "error", "finished_at", "heartbeat_at"])
    except SheetError as exc:
        _finish(task_id, JudgeTaskStatus.FAILED, f"The sheet could not be stored: {exc.message}")
        return "failed"
    judge_batch_refresh(batch_id=batch.pk)
    return "succeeded"


def _call(task: JudgeTask, sample: int, attempt: int, messages, params, shape) -> JudgeCall | str:
    """One provider call, persisted with its validation; a str when the task stops here."""
    batch = task.batch
    if JudgeBatch.objects.filter(pk=batch.pk, status=JudgeBatchStatus.CANCELLED).exists():
        _finish(task.pk, JudgeTaskStatus.CANCELLED)
        return "cancelled"
    endpoint = batch.judge.endpoint
    slot = leases.acquire(
        leases.endpoint_key(endpoint.pk),
        endpoint.concurrency_limit,
        wait=float(settings.GENERATION_SLOT_WAIT_SECONDS),
    )
    if slot is None:  # the endpoint is at its limit: queue again a little later
        JudgeTask.objects.filter(pk=task.pk).update(status=JudgeTaskStatus.QUEUED, heartbeat_at=None)
        judge_task_enqueue(task_id=task.pk, countdown=random.uniform(0.5, 2.0))
        return "waiting"
    try:
        completion = chat_complete(
            endpoint=endpoint, messages=messages, params=params, before_attempt=lambda _n: _beat(task.pk)
        )
    except LLMError as exc:
        _finish(task.pk, JudgeTaskStatus.FAILED, f"Sample {sample}, attempt {attempt}: {exc}")
        return "failed"
    finally:
        leases.release(slot)
    checked = answer_check(shape, completion.text)
    recorded = {
        **{k: v for k, v in params.items() if k != "response_format"},
        "structured_output": "response_format" in params,
        "prompt_version": batch.prompt_version,
        "samples": batch.samples,
        "model": endpoint.model_name,
    }
    try:
        return JudgeCall.objects.create(
            task=task,
            sample=sample,
            attempt=attempt,
            messages=messages,
            request_params=recorded,
            raw_output=completion.text,
            parsed=checked.values if checked.ok else None,
            errors=checked.errors,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            latency_ms=completion.latency_ms,
        )
    except IntegrityError:  # a duplicate task made this call first: use its record
        return JudgeCall.objects.get(task=task, sample=sample, attempt=attempt)


# --- batches: refresh, cancel, retry, resume ------------------------------------------


def judge_batch_refresh(*, batch_id: int) -> None:
    """A running batch whose tasks have all ended is finished."""
    if JudgeTask.objects.filter(batch_id=batch_id, status__in=ACTIVE).exists():
        return
    JudgeBatch.objects.filter(pk=batch_id, status=JudgeBatchStatus.RUNNING).update(
        status=JudgeBatchStatus.FINISHED, finished_at=timezone.now()
    )


def judge_batch_cancel(*, batch: JudgeBatch) -> int:
    """Stop the batch: queued tasks are cancelled now, running ones before their next call.
    Stored sheets stay. Returns how many tasks were cancelled at once."""
    with transaction.atomic():
        JudgeBatch.objects.filter(pk=batch.pk, status=JudgeBatchStatus.RUNNING).update(
            status=JudgeBatchStatus.CANCELLED, finished_at=timezone.now()
        )
        return JudgeTask.objects.filter(batch=batch, status=JudgeTaskStatus.QUEUED).update(
            status=JudgeTaskStatus.CANCELLED, finished_at=timezone.now()
        )


def judge_batch_retry(*, batch: JudgeBatch) -> int:
    """Queue the failed and cancelled tasks again. A retried task keeps its finished
    calls except the invalid ones of the sample that failed (that sample is asked anew)."""
    with transaction.atomic():
        tasks = list(
            JudgeTask.objects.select_for_update().filter(
                batch=batch, status__in=(JudgeTaskStatus.FAILED, JudgeTaskStatus.CANCELLED)
            )
        )
        for task in tasks:
            spent = JudgeCall.objects.filter(task=task, attempt=2, parsed__isnull=True).values_list(
                "sample", flat=True
            )
            JudgeCall.objects.filter(task=task, sample__in=list(spent)).delete()
            task.status, task.error, task.finished_at, task.heartbeat_at = (
                JudgeTaskStatus.QUEUED,
                "",
                None,
                None,
            )
            task.save(update_fields=["status", "error", "finished_at", "heartbeat_at"])
            judge_task_enqueue(task_id=task.pk)
        if tasks:
            JudgeBatch.objects.filter(pk=batch.pk).update(status=JudgeBatchStatus.RUNNING, finished_at=None)
    return len(tasks)


def judge_tasks_resume_stale(*, stale_seconds: float | None = None) -> list[int]:
    """Queue again the running tasks whose worker died: stale heartbeat, lease free."""
    stale = float(settings.GENERATION_STALE_SECONDS if stale_seconds is None else stale_seconds)
    cutoff = timezone.now() - timedelta(seconds=stale)
    resumed = []
    for task_id in list(
        JudgeTask.objects.filter(status=JudgeTaskStatus.RUNNING, heartbeat_at__lt=cutoff).values_list(
            "pk", flat=True
        )
    ):
        if leases.semaphores().holders(task_key(task_id)):
            continue  # a live worker holds it
        with transaction.atomic():
            if JudgeTask.objects.filter(
                pk=task_id, status=JudgeTaskStatus.RUNNING, heartbeat_at__lt=cutoff
            ).update(status=JudgeTaskStatus.QUEUED, heartbeat_at=None):
                judge_task_enqueue(task_id=task_id)
                resumed.append(task_id)
    return resumed

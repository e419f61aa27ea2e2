"""Judge batches on the LLM batch engine (``generation.services.engine``): a judge task
is a job whose protocol is the judge's (``judging.protocol``: it yields the calls,
asks again once on an invalid answer and returns the sheet), whose calls are stored as
``JudgeCall`` rows (sample, attempt, raw output, what validation found) and whose
result is the judge's submitted sheet (``judge_sheet_store``).

Running, heartbeats, resuming a task whose worker died or whose message was lost,
cancel, retry and the counters are the engine's, the same as for generation runs:
one Celery task (``generation.tasks.run_advance``) runs both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db import transaction

from core.llm.client import Completion
from core.tasks.outbox import task_send_on_commit
from generation.services import engine, recovery
from generation.services.engine import ACTIVE, Enqueue
from generation.services.kinds import JobProtocol, Kind, kind_register
from generation.strategies import Call
from judging.answer import SheetShape, answer_check, answer_schema
from judging.models import Judge, JudgeBatch, JudgeCall, JudgeTask, JudgeTaskStatus
from judging.prompt import CGPST_PROMPT_VERSIONS, RUBRIC_PROMPT_VERSION, judge_messages
from judging.protocol import JudgeResult, call_attempt, call_phase, judge_protocol
from judging.selectors.responses import response_view_get, responses_to_judge
from judging.services.sheets import judge_sheet_store
from scoring.services.sheets import SheetError
from studies.models import ModelEndpoint, Scenario, Study
from studies.rubric import load_rubric
from studies.rubric.cgpst import version_is_cgpst
from studies.services.audit import audit_record

if TYPE_CHECKING:
    from django.contrib.auth.models import User

JUDGE = "judge"
TASK_LOCK_WAIT_SECONDS = 2.0


class BatchError(ValueError):
    """A batch cannot be launched as asked; the message is for the user."""


def _request_params(batch: JudgeBatch, schema: dict[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = {"temperature": batch.temperature}
    if batch.judge.structured_output:
        params["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "cgpst_sheet", "strict": True, "schema": schema},
        }
    return params


class JudgeKind(Kind):
    name = JUDGE
    code = 1
    job_model = JudgeTask
    batch_model = JudgeBatch
    lock_prefix = "judgetask"
    lock_wait = TASK_LOCK_WAIT_SECONDS

    def job_get(self, job_id: int) -> JudgeTask | None:
        return (
            JudgeTask.objects.select_related(
                "batch__judge__endpoint", "response__scenario", "response__study"
            )
            .filter(pk=job_id)
            .first()
        )

    def _shape(self, job: JudgeTask) -> tuple[SheetShape, list[dict[str, str]]]:
        cached = getattr(job, "_judge_prompt", None)
        if cached is None:
            rubric = load_rubric(job.response.study.rubric_version)
            view = response_view_get(response=job.response)
            messages = judge_messages(version=job.batch.prompt_version, rubric=rubric, view=view)
            cached = (view.shape(rubric), messages)
            job._judge_prompt = cached  # type: ignore[attr-defined]
        return cached

    def protocol(self, job: JudgeTask) -> JobProtocol:
        shape, messages = self._shape(job)
        return judge_protocol(
            messages=messages,
            params=_request_params(job.batch, answer_schema(shape)),
            samples=job.batch.samples,
            shape=shape,
        )

    def replies(self, job: JudgeTask) -> tuple[dict[int, str], dict[int, tuple[Any, ...]], dict[int, int]]:
        # Calls are made in (sample, attempt) order and stored as a prefix of them.
        replies, known = {}, {}
        rows = JudgeCall.objects.filter(task=job).order_by("sample", "attempt")
        for seq, (sample, attempt, raw) in enumerate(rows.values_list("sample", "attempt", "raw_output")):
            replies[seq] = raw
            known[seq] = (sample, call_phase(attempt), "judge")
        return replies, known, {}

    def endpoint(self, job: JudgeTask) -> ModelEndpoint:
        return job.batch.judge.endpoint

    def call_store(self, job: JudgeTask, call: Call, completion: Completion, earlier_attempts: int) -> None:
        shape, _ = self._shape(job)
        checked = answer_check(shape, completion.text)
        batch = job.batch
        recorded = {
            **{k: v for k, v in call.params.items() if k != "response_format"},
            "structured_output": "response_format" in call.params,
            "prompt_version": batch.prompt_version,
            "samples": batch.samples,
            "model": batch.judge.endpoint.model_name,
        }
        JudgeCall.objects.create(
            task=job,
            sample=call.step,
            attempt=call_attempt(call.phase),
            messages=call.messages,
            request_params=recorded,
            raw_output=completion.text,
            parsed=checked.values if checked.ok else None,
            errors=checked.errors,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            latency_ms=completion.latency_ms,
            provider_attempts=min(earlier_attempts + completion.attempts, 32767),
            wait_ms=completion.wait_ms,
            rate_limited=min(completion.rate_limited, 32767),
        )

    def call_failed(self, job: JudgeTask, call: Call, error: str, attempts: int) -> str:
        return f"Sample {call.step}, {call.phase}: {error}"

    def finish(self, job_id: int, value: Any) -> None:
        result: JudgeResult = value
        if result.values is None:
            engine.job_end(kind=self, job_id=job_id, status=JudgeTaskStatus.FAILED, error=result.error)
            return
        task = self.job_get(job_id)
        assert task is not None
        batch = task.batch
        note = (
            f"LLM judge {batch.judge.name}, batch {batch.pk}, prompt {batch.prompt_version}, "
            f"T={batch.temperature:g}, k={batch.samples}"
        )
        try:
            with transaction.atomic():
                locked = JudgeTask.objects.select_for_update().get(pk=job_id)
                if locked.status not in ACTIVE:
                    return
                sheet = judge_sheet_store(
                    judge=batch.judge, response=task.response, values=result.values, note=note
                )
                engine.job_end(kind=self, job_id=job_id, status=JudgeTaskStatus.SUCCEEDED, sheet=sheet)
        except SheetError as exc:
            engine.job_end(
                kind=self,
                job_id=job_id,
                status=JudgeTaskStatus.FAILED,
                error=f"The sheet could not be stored: {exc.message}",
            )

    def batch_finished(self, batch_id: int) -> None:
        """The judge's gate runs again on the study (``judging.services.qualification``)."""
        task_send_on_commit(name=QUALIFICATION_TASK, args=(batch_id,))

    def before_retry(self, job: JudgeTask) -> None:
        """The sample whose answer was invalid twice is asked anew; other calls are kept."""
        spent = JudgeCall.objects.filter(task=job, attempt=2, parsed__isnull=True).values_list(
            "sample", flat=True
        )
        JudgeCall.objects.filter(task=job, sample__in=list(spent)).delete()


JUDGE_KIND = kind_register(JudgeKind())
QUALIFICATION_TASK = "judging.tasks.judge_qualification_task"  # sent by name: services never import tasks


def judge_batch_launch(
    *,
    study: Study,
    judge: Judge,
    scenario: Scenario | None = None,
    samples: int | None = None,
    actor: User | None = None,
    enqueue: Enqueue = engine.task_enqueue,
) -> JudgeBatch:
    """A batch over the study's (or one scenario's) responses, one task per response,
    each queued through the outbox with the batch's commit."""
    samples = judge.samples if samples is None else samples
    if judge.prompt_version in CGPST_PROMPT_VERSIONS and not version_is_cgpst(study.rubric_version):
        raise BatchError(
            f"The judge's prompt {judge.prompt_version} is written for the CGPST rubric; study {study.name} "
            f"uses another: create a judge with the prompt {RUBRIC_PROMPT_VERSION}, which reads any rubric."
        )
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
            model_name=judge.endpoint.model_name,
            temperature=judge.temperature,
            samples=samples,
            created_by=actor,
        )
        tasks = JudgeTask.objects.bulk_create(
            JudgeTask(batch=batch, response=r, calls_total=samples) for r in responses
        )
        audit_record(
            actor=actor,
            action="judge.batch_launch",
            target=batch,
            study=study,
            changes={"judge": judge.name, "responses": len(tasks), "samples": samples},
        )
        for task in tasks:
            engine.job_enqueue(kind=JUDGE_KIND, enqueue=enqueue, job_id=task.pk, seq=0)
    return batch


def judge_task_run(*, task_id: int) -> str:
    """Run (or resume) one judge task to its end in this process (commands, tests);
    idempotent. Returns succeeded | failed | cancelled | inactive | busy | gone."""
    outcome = engine.job_step(kind=JUDGE_KIND, job_id=task_id, seq=None)
    while outcome.kind in ("advanced", "waiting"):
        outcome = engine.job_step(kind=JUDGE_KIND, job_id=task_id, seq=None)
    if outcome.kind in ("finished", "failed"):
        return JudgeTask.objects.filter(pk=task_id).values_list("status", flat=True).first() or "gone"
    return outcome.kind


def _audited(*, actor: User | None, action: str, batch: JudgeBatch, count: int) -> None:
    """An event for a cancel or retry that changed tasks (none when there was nothing to do)."""
    if count:
        audit_record(actor=actor, action=action, target=batch, study=batch.study, changes={"tasks": count})


def judge_batch_cancel(*, batch: JudgeBatch, actor: User | None = None) -> int:
    """Stop the batch: its queued and running tasks are cancelled (a call in flight is
    still kept), stored sheets stay. Returns how many tasks were cancelled."""
    with transaction.atomic():
        count = engine.batch_cancel(kind=JUDGE_KIND, batch_id=batch.pk)
        _audited(actor=actor, action="judge.batch_cancel", batch=batch, count=count)
    return count


def judge_batch_retry(
    *, batch: JudgeBatch, enqueue: Enqueue = engine.task_enqueue, actor: User | None = None
) -> int:
    """Queue the failed and cancelled tasks again. A retried task keeps its finished
    calls except the invalid ones of the sample that failed (that sample is asked anew)."""
    with transaction.atomic():
        count = engine.batch_retry(kind=JUDGE_KIND, batch_id=batch.pk, enqueue=enqueue)
        _audited(actor=actor, action="judge.batch_retry", batch=batch, count=count)
    return count


def judge_tasks_resume_stale(
    *, enqueue: Enqueue = engine.task_enqueue, stale_seconds: float | None = None
) -> list[int]:
    """Queue again the tasks whose worker died: stale heartbeat, lock free."""
    return recovery.jobs_resume_stale(kind=JUDGE_KIND, enqueue=enqueue, stale_seconds=stale_seconds)

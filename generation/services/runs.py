"""Generation runs on the LLM batch engine (``generation.services.engine``): a run is
a job whose protocol is its strategy's (``generation.strategies``), whose calls are
stored as turns, and whose result is a Response.

How a job executes, is resumed and cannot hang is the engine's; this module says what
is particular to a run (its protocol from the frozen settings, its turns, its
response) and keeps the run-named entry points the rest of the app uses.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.db import models, transaction
from django.utils import timezone

from core.llm.client import Completion
from core.llm.redaction import redact_credentials
from generation.models import GenerationBatch, GenerationRun, RunStatus, Turn
from generation.services import engine, recovery
from generation.services.engine import ACTIVE, TRANSIENT_DB_ERRORS, Enqueue, StepOutcome
from generation.services.kinds import JobProtocol, Kind, jobs_heartbeat, kind_register
from generation.services.turns import turn_create
from generation.strategies import Call, protocol_for, task_for
from studies.models import ModelEndpoint, Response, ResponseSource
from studies.services.responses import ResponseExists, response_create

logger = logging.getLogger(__name__)

__all__ = [
    "ACTIVE",
    "TRANSIENT_DB_ERRORS",
    "RunEnqueue",
    "StepOutcome",
    "batch_refresh",
    "run_enqueue",
    "run_finish",
    "run_resume",
    "run_step",
    "runs_heartbeat",
    "runs_resume_stale",
]

RUN_LOCK_WAIT_SECONDS = 10.0
RunEnqueue = Enqueue
# The keeper's beat for the jobs this process works on, of every kind.
runs_heartbeat = jobs_heartbeat


class GenerationKind(Kind):
    name = engine.GENERATION
    code = 0
    job_model = GenerationRun
    batch_model = GenerationBatch
    lock_prefix = "run"  # leases.run_key

    def lock_wait_seconds(self) -> float:
        return RUN_LOCK_WAIT_SECONDS

    def job_get(self, job_id: int) -> GenerationRun | None:
        return GenerationRun.objects.select_related("endpoint").filter(pk=job_id).first()

    def protocol(self, job: GenerationRun) -> JobProtocol:
        snap = job.settings_snapshot
        return protocol_for(
            strategy=snap["strategy"],
            task=task_for(snap["scenario_text"], snap.get("task_kind", "cgpst")),  # older runs: CGPST
            params=snap["params"],
        )

    def replies(
        self, job: GenerationRun
    ) -> tuple[dict[int, str], dict[int, tuple[Any, ...]], dict[int, int]]:
        replies, known, failed = {}, {}, {}
        rows = Turn.objects.filter(run=job).values_list(
            "seq", "step", "phase", "role", "reply", "error", "attempts"
        )
        for seq, step, phase, role, reply, error, attempts in rows:
            if error:
                failed[seq] = attempts
            else:
                replies[seq] = reply
                known[seq] = (step, phase, role)
        return replies, known, failed

    def endpoint(self, job: GenerationRun) -> ModelEndpoint:
        return job.endpoint

    def call_store(
        self, job: GenerationRun, call: Call, completion: Completion, earlier_attempts: int
    ) -> None:
        turn_create(run=job, call=call, completion=completion, earlier_attempts=earlier_attempts)

    def call_failed(self, job: GenerationRun, call: Call, error: str, attempts: int) -> str:
        """Keep the failed call visible in the transcript; a retry replaces it."""
        Turn.objects.update_or_create(
            run=job,
            seq=call.seq,
            defaults={
                "step": call.step,
                "phase": call.phase,
                "role": call.role,
                "messages": call.messages,
                "request_params": call.params,
                "reply": "",
                "error": redact_credentials(error),
                "attempts": min(attempts, 32767),
            },
        )
        return f"Call {call.seq} (step {call.step}, {call.phase}, {call.role}): {error}"

    def finish(self, job_id: int, value: Any) -> None:
        run_finish(run_id=job_id, answers=list(value))


GENERATION_KIND = kind_register(GenerationKind())


def run_enqueue(*, enqueue: RunEnqueue, run_id: int, seq: int, countdown: float | None = None) -> None:
    """Enqueue the task of call ``seq`` of the run with the current transaction."""
    engine.job_enqueue(kind=GENERATION_KIND, enqueue=enqueue, job_id=run_id, seq=seq, countdown=countdown)


def run_step(*, run_id: int, seq: int | None, enqueue: RunEnqueue | None = None) -> StepOutcome:
    """Make call ``seq`` of the run and, while the task's budget lasts, the calls after
    it; then hand the run on through ``enqueue`` (see ``engine.job_step``)."""
    return engine.job_step(kind=GENERATION_KIND, job_id=run_id, seq=seq, enqueue=enqueue)


def _run_fail(run_id: int, error: str) -> None:
    engine.job_fail(kind=GENERATION_KIND, job_id=run_id, error=error)


def run_finish(*, run_id: int, answers: list[str]) -> Response | None:
    """Turn the six answers (a single-text task's one) into a Response (once: a redelivered finish is a no-op)."""
    with transaction.atomic():
        # Lock the run's row only (``of``): FOR UPDATE with the joins would also lock its
        # study, scenario, endpoint and condition, and a redelivered finish of the same run
        # then deadlocks with the first one's commit (its foreign-key checks need them).
        run = (
            GenerationRun.objects.select_for_update(of=("self",))
            .select_related("study", "scenario", "endpoint", "condition")
            .get(pk=run_id)
        )
        if run.response_id or run.status not in ACTIVE:
            return run.response
        research_id = run.settings_snapshot.get("research_id") or ""
        try:
            with transaction.atomic():
                response = response_create(
                    study=run.study,
                    scenario=run.scenario,
                    model=run.endpoint,
                    condition=run.condition,
                    answers=answers,
                    source=ResponseSource.GENERATED,
                    research_id=research_id,
                )
        except ResponseExists:
            run.status = RunStatus.FAILED
            run.error = (
                f"A response with research ID {research_id or 'for this run'} already exists in the study; "
                "this run's answers are kept in its turns."
            )
            response = None
        else:
            run.response = response
            run.status = RunStatus.SUCCEEDED
            run.current_phase = "done"
            # A debate that ended early made fewer calls than the most it could make.
            run.calls_total = run.calls_done
        run.finished_at = timezone.now()
        run.heartbeat_at = None
        run.dispatched_at = None
        run.save(
            update_fields=[
                "response",
                "status",
                "error",
                "current_phase",
                "calls_total",
                "finished_at",
                "heartbeat_at",
                "dispatched_at",
            ]
        )
    if run.batch_id:
        batch_refresh(batch_id=run.batch_id)
    return response


def runs_resume_stale(*, enqueue: RunEnqueue, stale_seconds: float | None = None) -> list[int]:
    """Re-enqueue the runs whose worker died mid-call (heartbeat stale, lock free)."""
    return recovery.jobs_resume_stale(kind=GENERATION_KIND, enqueue=enqueue, stale_seconds=stale_seconds)


def run_resume(
    *, run_id: int, enqueue: RunEnqueue, only_if_stale_before: datetime | None = None, retry: bool = False
) -> bool:
    """Queue the run again at its position, the first call without a turn."""
    only_if = None
    if only_if_stale_before is not None:
        only_if = models.Q(status__in=ACTIVE, heartbeat_at__lt=only_if_stale_before)
    return engine.job_resume(
        kind=GENERATION_KIND, job_id=run_id, enqueue=enqueue, only_if=only_if, retry=retry
    )


def batch_refresh(*, batch_id: int) -> None:
    """A running batch whose runs have all ended is finished."""
    engine.batch_refresh(kind=GENERATION_KIND, batch_id=batch_id)

"""How a generation run executes: a chain of Celery tasks, resumable at any point.

A run is a chain of ``run_advance(run_id, seq)`` tasks. Each task, holding the
run's lock (a cross-worker semaphore of one):

1. replays the persisted replies into the strategy's protocol; the first call
   without a reply is the run's position. A task whose ``seq`` is not that position
   is a duplicate or an outdated redelivery and does nothing;
2. marks the run as being worked on (``heartbeat_at``, kept fresh by the process's
   keeper thread) and makes calls: for each it takes a slot of the endpoint's
   concurrency limit, calls the provider (retrying transient errors) and persists
   the turn (unique per run and seq) with the run's counters in one statement. It
   carries on with the run's next call while its time budget lasts
   (``GENERATION_TASK_SECONDS``), so fast providers need few hand-offs;
3. releases the lock, enqueues the task of the next call (behind the other runs'
   tasks: runs share the workers) and clears ``heartbeat_at`` unless that task has
   already taken over: the run now waits in the queue.

So ``heartbeat_at`` is stale only when the worker died while working on the run;
:func:`runs_resume_stale` (every worker runs it) re-enqueues such runs at their
position. No completed call is repeated: its turn is persisted and replayed.

Services never import ``generation.tasks`` (it imports them): the functions that
enqueue take an ``enqueue`` callable (:class:`RunEnqueue`) from their caller,
``generation.tasks.run_advance_send`` in the app.
"""

from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from django.conf import settings
from django.db import IntegrityError, InterfaceError, OperationalError, transaction
from django.utils import timezone

from core.llm import leases
from core.llm.client import LLMError, chat_complete, redact_credentials
from generation.models import BatchStatus, GenerationBatch, GenerationRun, RunStatus, Turn
from generation.services.turns import turn_persist
from generation.strategies import Call, Done, ProtocolError, protocol_for, protocol_next, task_for
from studies.models import Response, ResponseSource
from studies.services.responses import ResponseExists, response_create

logger = logging.getLogger(__name__)

ACTIVE = (RunStatus.QUEUED, RunStatus.RUNNING)
RUN_LOCK_WAIT_SECONDS = 10.0
# Database errors worth retrying; any other error fails the run with its message.
TRANSIENT_DB_ERRORS = (OperationalError, InterfaceError)


class RunEnqueue(Protocol):
    """Records the task of call ``seq`` of a run in the current transaction, to be sent
    when it commits (after ``countdown`` seconds if given): ``generation.tasks.run_advance_send``
    writes it to the task outbox (``core.tasks.outbox``), so a broker that is away delays
    the run, never loses it."""

    def __call__(self, *, run_id: int, seq: int, countdown: float | None = None) -> object: ...


def run_enqueue(*, enqueue: RunEnqueue, run_id: int, seq: int, countdown: float | None = None) -> None:
    """Enqueue the task of call ``seq`` of the run with the current transaction: it is
    recorded now and sent when the transaction commits (so the task never looks for
    rows it cannot see yet, and exists whenever they do)."""
    enqueue(run_id=run_id, seq=seq, countdown=countdown)


# --- advancing -------------------------------------------------------------------


@dataclass(frozen=True)
class StepOutcome:
    """What one task did: advanced | finished | failed | waiting | stale | busy | inactive | gone."""

    kind: str
    next_seq: int | None = None
    beat: datetime | None = None  # the heartbeat left for the hand-off (advanced, waiting)


def _protocol(run: GenerationRun):
    snap = run.settings_snapshot
    return protocol_for(
        strategy=snap["strategy"], task=task_for(snap["scenario_text"]), params=snap["params"]
    )


def _load_turns(run: GenerationRun) -> tuple[dict[int, str], dict[int, tuple[int, str, str]], dict[int, int]]:
    replies, known, failed = {}, {}, {}
    rows = Turn.objects.filter(run=run).values_list(
        "seq", "step", "phase", "role", "reply", "error", "attempts"
    )
    for seq, step, phase, role, reply, error, attempts in rows:
        if error:
            failed[seq] = attempts
        else:
            replies[seq] = reply
            known[seq] = (step, phase, role)
    return replies, known, failed


def run_position(run: GenerationRun) -> tuple[Call | Done, int]:
    """The run's next call (or Done) and its seq: where a resumed run continues."""
    replies, known, _ = _load_turns(run)
    position = protocol_next(_protocol(run), replies, known)
    return position, position.seq if isinstance(position, Call) else len(replies)


def run_step(*, run_id: int, seq: int, enqueue: RunEnqueue | None = None) -> StepOutcome:
    """Make call ``seq`` of the run and, while this task's time budget lasts, the
    calls after it (or finish the run when no call is left); then hand the run to
    a new task through ``enqueue``, queued behind the other runs' tasks so that runs
    share the workers. Without ``enqueue`` only call ``seq`` is made and the run is
    not handed on (the caller loops: eager tasks, tests)."""
    lease = leases.acquire(leases.run_key(run_id), 1, wait=RUN_LOCK_WAIT_SECONDS)
    if lease is None:
        return StepOutcome("busy")
    try:
        budget = float(settings.GENERATION_TASK_SECONDS) if enqueue is not None else 0.0
        outcome = _run_steps_locked(run_id, seq, budget)
    except TRANSIENT_DB_ERRORS:
        raise  # the task retries; the heartbeat left in place lets the sweeper step in
    except Exception as exc:
        # A bug or bad data must not leave the run hanging: fail it, visibly.
        logger.exception("generation run %s crashed at call %s", run_id, seq)
        _run_fail(run_id, f"Internal error at call {seq}: {type(exc).__name__}: {exc}")
        outcome = StepOutcome("failed")
    finally:
        leases.release(lease)
    if outcome.kind in ("advanced", "waiting") and enqueue is not None:
        # Published after the turn is committed and the run's lock released, so the
        # next task never waits for this one. Until the hand-off is complete the
        # heartbeat stays set: a worker dying in between leaves a stale heartbeat,
        # and the sweeper resumes the run (a duplicate task is harmless).
        assert outcome.next_seq is not None  # advanced and waiting always name the next call
        countdown = random.uniform(0.5, 2.0) if outcome.kind == "waiting" else None
        run_enqueue(enqueue=enqueue, run_id=run_id, seq=outcome.next_seq, countdown=countdown)
        # The next task may already have picked the run up (and set its own beat).
        GenerationRun.objects.filter(pk=run_id, heartbeat_at=outcome.beat).update(heartbeat_at=None)
    return outcome


def _next(protocol, reply: str) -> Call | Done:
    try:
        return protocol.send(reply)
    except StopIteration as stop:
        return Done(list(stop.value))


def _phase_label(position: Call | Done) -> dict:
    if isinstance(position, Done):
        return {"current_phase": "finishing"}
    return {"current_step": position.step, "current_phase": f"{position.phase} · {position.role}"[:40]}


def _run_steps_locked(run_id: int, seq: int, budget: float) -> StepOutcome:
    run = GenerationRun.objects.select_related("endpoint").filter(pk=run_id).first()
    if run is None:
        return StepOutcome("gone")
    if run.status not in ACTIVE:
        return StepOutcome("inactive")
    replies, known, failed = _load_turns(run)
    protocol = _protocol(run)
    try:
        position = protocol_next(protocol, replies, known)
    except ProtocolError as exc:
        _run_fail(run.pk, f"The strategy's protocol no longer matches this run's turns: {exc}")
        return StepOutcome("failed")
    at = position.seq if isinstance(position, Call) else len(replies)
    if seq != at:
        return StepOutcome("stale", at)

    started = time.monotonic()
    now = timezone.now()
    fields = {"heartbeat_at": now, **_phase_label(position)}
    if run.status == RunStatus.QUEUED:
        fields.update(status=RunStatus.RUNNING, attempts=run.attempts + 1, started_at=run.started_at or now)
    GenerationRun.objects.filter(pk=run.pk).update(**fields)
    keeper = leases.keeper()
    keeper.beat(run.pk)
    beating = True
    outcome = StepOutcome("failed")
    done = len(replies)
    try:
        while True:
            if isinstance(position, Done):
                run_finish(run_id=run.pk, answers=position.answers)
                outcome = StepOutcome("finished")
                return outcome
            call = position
            slot = leases.acquire(
                leases.endpoint_key(run.endpoint_id),
                run.endpoint.concurrency_limit,
                wait=float(settings.GENERATION_SLOT_WAIT_SECONDS),
            )
            if slot is None:
                # The endpoint is at its limit: try again a little later, freeing this thread.
                keeper.unbeat(run.pk)
                beating = False
                beat = timezone.now()
                GenerationRun.objects.filter(pk=run.pk).update(heartbeat_at=beat)
                outcome = StepOutcome("waiting", call.seq, beat)
                return outcome
            try:
                completion = chat_complete(endpoint=run.endpoint, messages=call.messages, params=call.params)
            except LLMError as exc:
                _turn_failed(run, call, str(exc), failed.get(call.seq, 0) + exc.attempts)
                _run_fail(run.pk, f"Call {call.seq} (step {call.step}, {call.phase}, {call.role}): {exc}")
                return outcome
            finally:
                leases.release(slot)
            following = _next(protocol, completion.text)
            last = time.monotonic() - started >= budget
            if last:
                keeper.unbeat(run.pk)  # from here on the heartbeat is the hand-off's
                beating = False
            outcome = _persist(run, call, completion, done, failed.get(call.seq, 0), following)
            if outcome.kind != "advanced" or last:
                return outcome
            done += 1
            position = following
    except TRANSIENT_DB_ERRORS:
        # A lost connection, a locked SQLite file: the task retries, and if it cannot,
        # the heartbeat left in place lets the sweeper resume the run later.
        outcome = StepOutcome("crashed")
        raise
    finally:
        if beating:
            keeper.unbeat(run.pk)
        if outcome.kind not in ("advanced", "waiting", "crashed"):
            GenerationRun.objects.filter(pk=run.pk).update(heartbeat_at=None)


def _persist(
    run: GenerationRun,
    call: Call,
    completion,
    done_before: int,
    earlier_attempts: int,
    following: Call | Done,
) -> StepOutcome:
    """Save the turn; the run's status says whether the chain goes on."""
    beat = timezone.now()
    try:
        active = turn_persist(
            run=run,
            call=call,
            completion=completion,
            calls_done=done_before + 1,  # completed turns are always a prefix 0..seq
            earlier_attempts=earlier_attempts,
            progress=_phase_label(following),
            beat=beat,
        )
    except IntegrityError:
        # Another task persisted this call first (it carries on the chain).
        return StepOutcome("stale", call.seq + 1)
    if not active:  # cancelled meanwhile: the turn is kept, the chain ends
        return StepOutcome("inactive", call.seq + 1)
    return StepOutcome("advanced", call.seq + 1, beat)


def _turn_failed(run: GenerationRun, call: Call, error: str, attempts: int) -> None:
    """Keep the failed call visible in the transcript; a retry replaces it."""
    error = redact_credentials(error)
    Turn.objects.update_or_create(
        run=run,
        seq=call.seq,
        defaults={
            "step": call.step,
            "phase": call.phase,
            "role": call.role,
            "messages": call.messages,
            "request_params": call.params,
            "reply": "",
            "error": error,
            "attempts": min(attempts, 32767),
        },
    )


def _run_fail(run_id: int, error: str) -> None:
    error = redact_credentials(error)
    updated = GenerationRun.objects.filter(pk=run_id, status__in=ACTIVE).update(
        status=RunStatus.FAILED, error=error, finished_at=timezone.now(), heartbeat_at=None
    )
    logger.warning("generation run %s failed: %s", run_id, error)
    batch_id = GenerationRun.objects.filter(pk=run_id).values_list("batch_id", flat=True).first()
    if updated and batch_id:
        batch_refresh(batch_id=batch_id)


def run_finish(*, run_id: int, answers: list[str]) -> Response | None:
    """Turn the six answers into a Response (once: a redelivered finish is a no-op)."""
    with transaction.atomic():
        run = (
            GenerationRun.objects.select_for_update()
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
        run.save(
            update_fields=[
                "response",
                "status",
                "error",
                "current_phase",
                "calls_total",
                "finished_at",
                "heartbeat_at",
            ]
        )
        if run.batch_id:
            batch_id = run.batch_id
            transaction.on_commit(lambda: batch_refresh(batch_id=batch_id))
    return response


# --- heartbeats and dead runs ----------------------------------------------------------


def runs_heartbeat(*, run_ids: list[int]) -> None:
    """The keeper's beat for runs this process works on (never revives a cleared beat)."""
    GenerationRun.objects.filter(pk__in=run_ids, heartbeat_at__isnull=False).update(
        heartbeat_at=timezone.now()
    )


def runs_resume_stale(*, enqueue: RunEnqueue, stale_seconds: float | None = None) -> list[int]:
    """Re-enqueue runs whose worker died mid-call: heartbeat stale and lock free."""
    stale_seconds = float(settings.GENERATION_STALE_SECONDS if stale_seconds is None else stale_seconds)
    cutoff = timezone.now() - timedelta(seconds=stale_seconds)
    resumed = []
    candidates = GenerationRun.objects.filter(status__in=ACTIVE, heartbeat_at__lt=cutoff).values_list(
        "pk", flat=True
    )
    for run_id in list(candidates):
        if leases.semaphores().holders(leases.run_key(run_id)):
            continue  # a live task holds the run; its keeper will beat soon
        if run_resume(run_id=run_id, enqueue=enqueue, only_if_stale_before=cutoff):
            resumed.append(run_id)
    return resumed


def run_resume(*, run_id: int, enqueue: RunEnqueue, only_if_stale_before: datetime | None = None) -> bool:
    """Queue the run again at its position, the first call without a turn."""
    with transaction.atomic():
        run = GenerationRun.objects.select_for_update(skip_locked=True).filter(pk=run_id).first()
        if run is None:
            return False
        if only_if_stale_before is not None and not (
            run.status in ACTIVE and run.heartbeat_at and run.heartbeat_at < only_if_stale_before
        ):
            return False
        try:
            _, seq = run_position(run)
        except ProtocolError as exc:
            run.status, run.error = RunStatus.FAILED, str(exc)
            run.save(update_fields=["status", "error"])
            return False
        run.status = RunStatus.QUEUED
        run.error = ""
        run.finished_at = None
        run.heartbeat_at = None
        run.save(update_fields=["status", "error", "finished_at", "heartbeat_at"])
        run_enqueue(enqueue=enqueue, run_id=run.pk, seq=seq)
        if run.batch_id:
            GenerationBatch.objects.filter(pk=run.batch_id).exclude(status=BatchStatus.RUNNING).update(
                status=BatchStatus.RUNNING, finished_at=None
            )
    return True


def batch_refresh(*, batch_id: int) -> None:
    """A running batch whose runs have all ended is finished."""
    with transaction.atomic():
        if GenerationRun.objects.filter(batch_id=batch_id, status__in=ACTIVE).exists():
            return
        GenerationBatch.objects.filter(pk=batch_id, status=BatchStatus.RUNNING).update(
            status=BatchStatus.FINISHED, finished_at=timezone.now()
        )

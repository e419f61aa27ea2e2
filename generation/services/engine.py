"""The LLM batch engine: batches of jobs, each job a chain of provider calls made by a
deterministic protocol, resumable at any point. Generation runs and judge tasks are
two kinds of job on this one engine.

A kind (:class:`Kind`, registered with :func:`kind_register`) says what its jobs are:
their model (an :class:`~generation.models.EngineJob`), their protocol (a generator
that yields :class:`~generation.strategies.Call` objects, receives each reply and
returns the job's result), how a finished call is stored and replayed, and what the
result becomes (a response, a judge's sheet). The engine does the rest, the same way
for every kind:

1. one Celery task, ``generation.tasks.run_advance(job_id, seq, kind)``, recorded in
   the task outbox and sent on commit. Holding the job's lock (a cross-worker
   semaphore of one), it replays the stored replies into the protocol; the first call
   without a reply is the job's position. A task whose ``seq`` is not that position
   is a duplicate or an outdated redelivery and does nothing (``None`` means "where
   the job is");
2. it marks the job as worked on (``heartbeat_at``, kept fresh by the process's
   keeper thread) and makes calls: each takes a slot of the endpoint's concurrency
   limit, goes through the LLM client (retries, rate limits) and is stored at once
   with the job's counters. It carries on while its time budget lasts
   (``GENERATION_TASK_SECONDS``);
3. it releases the lock, enqueues the task of the next call (behind the other jobs:
   jobs share the workers) and clears ``heartbeat_at`` unless that task has already
   taken over.

Jobs that cannot hang: every enqueue stamps ``dispatched_at`` and a worker adds the
time it spends to ``active_seconds``; stuck jobs are found and resumed by
``generation.services.recovery``. Kinds and their registry: ``generation.services.kinds``.

Services never import ``generation.tasks``: functions that enqueue take an
``enqueue`` callable (:class:`Enqueue`), ``generation.tasks.run_advance_send``.
"""

from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any, Protocol

from django.conf import settings
from django.db import IntegrityError, InterfaceError, OperationalError, models, transaction
from django.db.models import F, Value
from django.db.models.functions import Greatest
from django.utils import timezone

from core.llm import leases
from core.llm.client import Completion, LLMError, chat_complete
from core.llm.redaction import redact_credentials
from core.outages import INFRASTRUCTURE_ERRORS, database_write_patiently, outage_reason
from core.stalls import stall_meter
from core.tasks.outbox import task_send_on_commit
from generation.models import BatchStatus, EngineJob, RunStatus
from generation.services.kinds import JobProtocol, Kind, beat_token
from generation.strategies.base import Call, Finished, ProtocolError, protocol_position

logger = logging.getLogger(__name__)

ACTIVE = (RunStatus.QUEUED, RunStatus.RUNNING)
# Database errors worth retrying; any other error fails the job with its message.
TRANSIENT_DB_ERRORS = (OperationalError, InterfaceError)
# The one Celery task of the engine (``generation.tasks.run_advance``).
ENGINE_TASK = "generation.tasks.run_advance"
GENERATION = "generation"


class Enqueue(Protocol):
    """Records the task of call ``seq`` of a job in the current transaction, to be sent
    when it commits (after ``countdown`` seconds if given): ``generation.tasks.run_advance_send``
    writes it to the task outbox, so a broker that is away delays the job, never loses it."""

    def __call__(
        self, *, run_id: int, seq: int | None, countdown: float | None = None, kind: str = GENERATION
    ) -> object: ...


# --- enqueueing -------------------------------------------------------------------


def task_enqueue(
    *, run_id: int, seq: int | None, countdown: float | None = None, kind: str = GENERATION
) -> None:
    """The engine's ``enqueue``: its one task, ``run_advance(job_id, seq[, kind])``, recorded
    in the task outbox with the caller's transaction and sent after its commit (by name:
    services never import tasks). A generation run's arguments stay ``[run_id, seq]``."""
    args: list[Any] = [run_id, seq] if kind == GENERATION else [run_id, seq, kind]
    task_send_on_commit(name=ENGINE_TASK, args=args, countdown=countdown)


def job_enqueue(
    *, kind: Kind, enqueue: Enqueue, job_id: int, seq: int | None, countdown: float | None = None
) -> None:
    """Enqueue the task of call ``seq`` with the current transaction (recorded now, sent
    on commit) and stamp the job's ``dispatched_at``: from then on a task must take it up
    within ENGINE_START_SECONDS, or the sweeper sends another."""
    delay = timedelta(seconds=countdown or 0)
    kind.jobs.filter(pk=job_id).update(dispatched_at=timezone.now() + delay)
    enqueue(run_id=job_id, seq=seq, countdown=countdown, kind=kind.name)


# --- advancing -------------------------------------------------------------------


@dataclass(frozen=True)
class StepOutcome:
    """What one task did: advanced | finished | failed | waiting | paused | stale | busy |
    inactive | gone. ``paused``: an outage stopped it; it is queued again after ``countdown``."""

    kind: str
    next_seq: int | None = None
    beat: datetime | None = None  # the heartbeat left for the hand-off (advanced, waiting)
    countdown: float = 0.0


def recovery_notes_join(*, earlier: str, note: str, limit: int = 300) -> str:
    """Every resume's reason, oldest first; past ``limit`` the first (it says what went wrong,
    a later resume must not hide it) and the newest are kept."""
    joined = f"{earlier}; {note}" if earlier else note
    if len(joined) <= limit:
        return joined
    first = earlier.split("; ", 1)[0]
    return f"{first}; …; {note}" if len(first) + len(note) + 5 <= limit else note[:limit]


def job_position(*, kind: Kind, job: EngineJob) -> tuple[Call | Finished, int]:
    """The job's next call (or its result) and that call's seq: where a resumed job continues."""
    replies, known, _ = kind.replies(job)
    position = protocol_position(kind.protocol(job), replies, known)
    return position, position.seq if isinstance(position, Call) else len(replies)


def job_step(*, kind: Kind, job_id: int, seq: int | None, enqueue: Enqueue | None = None) -> StepOutcome:
    """Make call ``seq`` of the job and, while this task's time budget lasts, the calls
    after it (or finish the job when none is left); then hand the job to a new task
    through ``enqueue``, queued behind the other jobs' tasks. Without ``enqueue`` only
    one call is made and the job is not handed on (the caller loops)."""
    try:
        lease = leases.acquire(kind.lock_key(job_id), 1, wait=kind.lock_wait_seconds())
    except INFRASTRUCTURE_ERRORS as exc:
        lease, outcome = None, job_pause(kind=kind, job_id=job_id, reason=outage_reason(exc))
    else:
        if lease is None:
            return StepOutcome("busy")
        try:
            budget = float(settings.GENERATION_TASK_SECONDS) if enqueue is not None else 0.0
            outcome = _steps_locked(kind, job_id, seq, budget)
        except TRANSIENT_DB_ERRORS:
            raise  # the task retries; the heartbeat left in place lets the sweeper step in
        except INFRASTRUCTURE_ERRORS as exc:
            # Redis or the broker away is a wait, not a failure: the job pauses and tries again.
            logger.warning("%s job %s paused at call %s: %s", kind.name, job_id, seq, exc)
            outcome = job_pause(kind=kind, job_id=job_id, reason=outage_reason(exc))
        except Exception as exc:
            # A bug or bad data must not leave the job hanging: fail it, visibly.
            logger.exception("%s job %s crashed at call %s", kind.name, job_id, seq)
            job_fail(
                kind=kind, job_id=job_id, error=f"Internal error at call {seq}: {type(exc).__name__}: {exc}"
            )
            outcome = StepOutcome("failed")
        finally:
            leases.release(lease)
    if outcome.kind == "paused" and enqueue is not None:
        # Recorded in the outbox: sent when the broker answers (at once if it is another store).
        job_enqueue(kind=kind, enqueue=enqueue, job_id=job_id, seq=None, countdown=outcome.countdown)
    if outcome.kind in ("advanced", "waiting") and enqueue is not None:
        # Published after the call is committed and the lock released, so the next task
        # never waits for this one. Until the hand-off is complete the heartbeat stays
        # set: a worker dying in between leaves a stale heartbeat for the sweeper.
        assert outcome.next_seq is not None  # advanced and waiting always name the next call
        countdown = random.uniform(0.5, 2.0) if outcome.kind == "waiting" else None
        job_enqueue(kind=kind, enqueue=enqueue, job_id=job_id, seq=outcome.next_seq, countdown=countdown)
        # The next task may already have picked the job up (and set its own beat).
        kind.jobs.filter(pk=job_id, heartbeat_at=outcome.beat).update(heartbeat_at=None)
    return outcome


def _progress(position: Call | Finished) -> dict[str, Any]:
    if isinstance(position, Finished):
        return {"current_phase": "finishing"}
    return {"current_step": position.step, "current_phase": f"{position.phase} · {position.role}"[:40]}


def _next(protocol: JobProtocol, reply: str) -> Call | Finished:
    try:
        return protocol.send(reply)
    except StopIteration as stop:
        return Finished(stop.value)


class _Clock:
    """The time this task works on the job, added to ``active_seconds`` as it goes; the time
    the worker stood still (stopped, frozen) is not work."""

    def __init__(self) -> None:
        self.mark = time.monotonic()
        self.stalled = stall_meter().stalled_seconds()

    def lap(self) -> float:
        now, stalled = time.monotonic(), stall_meter().stalled_seconds()
        seconds = (now - self.mark) - (stalled - self.stalled)
        self.mark, self.stalled = now, stalled
        return max(0.0, seconds)


def _steps_locked(kind: Kind, job_id: int, seq: int | None, budget: float) -> StepOutcome:
    job = kind.job_get(job_id)
    if job is None:
        return StepOutcome("gone")
    if job.status not in ACTIVE:
        return StepOutcome("inactive")
    replies, known, failed = kind.replies(job)
    protocol = kind.protocol(job)
    try:
        position = protocol_position(protocol, replies, known)
    except ProtocolError as exc:
        job_fail(kind=kind, job_id=job.pk, error=f"The protocol no longer matches this job's calls: {exc}")
        return StepOutcome("failed")
    at = position.seq if isinstance(position, Call) else len(replies)
    if seq is not None and seq != at:
        return StepOutcome("stale", at)

    clock = _Clock()
    started = time.monotonic()
    now = timezone.now()
    fields: dict[str, Any] = {"heartbeat_at": now, "dispatched_at": None, **_progress(position)}
    if job.status == RunStatus.QUEUED:
        fields.update(status=RunStatus.RUNNING, attempts=job.attempts + 1, started_at=job.started_at or now)
    kind.jobs.filter(pk=job.pk).update(**fields)
    keeper = leases.keeper()
    token = beat_token(kind, job.pk)
    keeper.beat(token)
    beating = True
    outcome = StepOutcome("failed")
    done = len(replies)
    try:
        while True:
            if isinstance(position, Finished):
                _add_active(kind, job.pk, clock.lap())
                kind.finish(job.pk, position.value)
                job_batch_refresh_for(kind=kind, job_id=job.pk)
                outcome = StepOutcome("finished")
                return outcome
            call = position
            endpoint = kind.endpoint(job)
            slot = leases.acquire(
                leases.endpoint_key(endpoint.pk),
                endpoint.concurrency_limit,
                wait=float(settings.GENERATION_SLOT_WAIT_SECONDS),
            )
            if slot is None:
                # The endpoint is at its limit: try again a little later, freeing this thread.
                keeper.unbeat(token)
                beating = False
                beat = timezone.now()
                kind.jobs.filter(pk=job.pk).update(heartbeat_at=beat)
                outcome = StepOutcome("waiting", call.seq, beat)
                return outcome
            try:
                completion = chat_complete(endpoint=endpoint, messages=call.messages, params=call.params)
            except LLMError as exc:
                error = kind.call_failed(job, call, str(exc), failed.get(call.seq, 0) + exc.attempts)
                job_fail(kind=kind, job_id=job.pk, error=error)
                return outcome
            finally:
                leases.release(slot)
            following = _next(protocol, completion.text)
            last = time.monotonic() - started >= budget
            if last:
                keeper.unbeat(token)  # from here on the heartbeat is the hand-off's
                beating = False
            # The answer is paid for: a database blip delays its storing, never discards it.
            store = partial(
                _persist, kind, job, call, completion, done, failed.get(call.seq, 0), following, clock
            )
            outcome = database_write_patiently(store, seconds=float(settings.GENERATION_STORE_WAIT_SECONDS))
            if outcome.kind != "advanced" or last:
                return outcome
            done += 1
            position = following
    except TRANSIENT_DB_ERRORS:
        # A lost connection, a locked SQLite file: the task retries, and if it cannot,
        # the heartbeat left in place lets the sweeper resume the job later.
        outcome = StepOutcome("crashed")
        raise
    finally:
        if beating:
            keeper.unbeat(token)
        if outcome.kind != "finished":
            _add_active(kind, job.pk, clock.lap())
        if outcome.kind not in ("advanced", "waiting", "crashed"):
            kind.jobs.filter(pk=job.pk).update(heartbeat_at=None)


def _add_active(kind: Kind, job_id: int, seconds: float) -> None:
    kind.jobs.filter(pk=job_id).update(active_seconds=F("active_seconds") + max(0.0, seconds))


def _persist(
    kind: Kind,
    job: EngineJob,
    call: Call,
    completion: Completion,
    done_before: int,
    earlier_attempts: int,
    following: Call | Finished,
    clock: _Clock,
) -> StepOutcome:
    """Store the call and the job's counters at once; the job's status says whether the
    chain goes on (a cancelled job keeps the call, and the chain ends)."""
    beat = timezone.now()
    counters = {
        "calls_done": done_before + 1,  # finished calls are always a prefix 0..seq
        "calls_total": Greatest(F("calls_total"), Value(done_before + 1)),
        "prompt_tokens": F("prompt_tokens") + completion.prompt_tokens,
        "completion_tokens": F("completion_tokens") + completion.completion_tokens,
        "active_seconds": F("active_seconds") + clock.lap(),
        "waiting_for": "",  # a finished call ends any outage wait
        "waiting_until": None,
    }
    try:
        with transaction.atomic():
            kind.call_store(job, call, completion, earlier_attempts)
            active = kind.jobs.filter(pk=job.pk, status__in=ACTIVE).update(
                heartbeat_at=beat, **counters, **_progress(following)
            )
            if not active:
                kind.jobs.filter(pk=job.pk).update(**counters)
    except IntegrityError:
        # Another task stored this call first (it carries on the chain).
        return StepOutcome("stale", call.seq + 1)
    if not active:
        return StepOutcome("inactive", call.seq + 1)
    return StepOutcome("advanced", call.seq + 1, beat)


def job_pause(*, kind: Kind, job_id: int, reason: str) -> StepOutcome:
    """An outage stopped the job: record what it waits for and its deadline (set by the
    first pause of this wait, ``ENGINE_OUTAGE_WAIT_SECONDS`` on), and say when to try again;
    past the deadline it fails with the reason (a retry resumes it)."""
    now = timezone.now()
    row = kind.jobs.filter(pk=job_id, status__in=ACTIVE).values("waiting_until").first()
    if row is None:
        return StepOutcome("inactive")
    limit = float(settings.ENGINE_OUTAGE_WAIT_SECONDS)
    until = row["waiting_until"] or now + timedelta(seconds=limit)
    if now >= until:
        job_fail(kind=kind, job_id=job_id, error=f"Stopped after waiting {limit:g} s: {reason}.")
        return StepOutcome("failed")
    kind.jobs.filter(pk=job_id, status__in=ACTIVE).update(
        waiting_for=reason[:200], waiting_until=until, heartbeat_at=None
    )
    waited = limit - (until - now).total_seconds()
    # Soon after a blip, then every half minute at most.
    return StepOutcome("paused", countdown=min(30.0, max(2.0, waited / 4)))


def job_fail(
    *, kind: Kind, job_id: int, error: str, waiting_for: str = "", only_if: models.Q | None = None
) -> bool:
    """End an active job as failed with ``error`` (credentials redacted). ``waiting_for``
    says what would resume it by itself (``recovery.NO_WORKER``: a worker's return);
    ``only_if``: a filter it must still match. Whether it ended."""
    error = redact_credentials(error)[:20000]
    rows = kind.jobs.filter(pk=job_id, status__in=ACTIVE)
    updated = (rows.filter(only_if) if only_if is not None else rows).update(
        status=RunStatus.FAILED,
        error=error,
        finished_at=timezone.now(),
        heartbeat_at=None,
        dispatched_at=None,
        waiting_for=waiting_for,
        waiting_until=None,
    )
    logger.warning("%s job %s failed: %s", kind.name, job_id, error)
    if updated:
        job_batch_refresh_for(kind=kind, job_id=job_id)
    return bool(updated)


def job_end(*, kind: Kind, job_id: int, status: str, error: str = "", **fields: Any) -> bool:
    """End an active job with ``status`` (and the kind's own ``fields``), once."""
    return bool(
        kind.jobs.filter(pk=job_id, status__in=ACTIVE).update(
            status=status,
            error=redact_credentials(error)[:20000],
            finished_at=timezone.now(),
            heartbeat_at=None,
            dispatched_at=None,
            **fields,
        )
    )


# --- batches: refresh, cancel, retry, resume -------------------------------------------


def job_batch_refresh_for(*, kind: Kind, job_id: int) -> None:
    """Refresh the batch of a job that has just ended."""
    batch_id = kind.jobs.filter(pk=job_id).values_list("batch_id", flat=True).first()
    if batch_id:
        batch_refresh(kind=kind, batch_id=batch_id)


def batch_refresh(*, kind: Kind, batch_id: int) -> None:
    """A running batch whose jobs have all ended is finished."""
    with transaction.atomic():
        if kind.jobs.filter(batch_id=batch_id, status__in=ACTIVE).exists():
            return
        finished = kind.batch_model._default_manager.filter(pk=batch_id, status=BatchStatus.RUNNING).update(
            status=BatchStatus.FINISHED, finished_at=timezone.now()
        )
        if finished:
            kind.batch_finished(batch_id)


def job_cancel(*, kind: Kind, job_id: int) -> bool:
    """Stop a queued or running job. A call in flight still completes and is kept."""
    with transaction.atomic():
        updated = kind.jobs.filter(pk=job_id, status__in=ACTIVE).update(
            status=RunStatus.CANCELLED, finished_at=timezone.now(), heartbeat_at=None, dispatched_at=None
        )
    if updated:
        job_batch_refresh_for(kind=kind, job_id=job_id)
    return bool(updated)


def batch_cancel(*, kind: Kind, batch_id: int) -> int:
    """Stop the batch: its queued and running jobs are cancelled (a call in flight is
    still kept). Returns how many were cancelled."""
    now = timezone.now()
    with transaction.atomic():
        count = kind.jobs.filter(batch_id=batch_id, status__in=ACTIVE).update(
            status=RunStatus.CANCELLED, finished_at=now, heartbeat_at=None, dispatched_at=None
        )
        kind.batch_model._default_manager.filter(pk=batch_id, status=BatchStatus.RUNNING).update(
            status=BatchStatus.CANCELLED, finished_at=now
        )
    return count


def job_resume(
    *,
    kind: Kind,
    job_id: int,
    enqueue: Enqueue,
    only_if: models.Q | None = None,
    note: str = "",
    retry: bool = False,
) -> bool:
    """Queue the job again at its position, the first call without a stored reply.
    ``only_if`` (a filter the job must still match, under its row lock) makes the
    sweeper's resume idempotent; ``note`` records why the sweeper did it; ``retry``
    runs the kind's own preparation for a person's retry of a failed job."""
    with transaction.atomic():
        rows = kind.jobs.select_for_update(skip_locked=True).filter(pk=job_id)
        if only_if is not None:
            rows = rows.filter(only_if)
        job = rows.first()
        if job is None:
            return False
        if retry:
            kind.before_retry(job)
        try:
            _, seq = job_position(kind=kind, job=job)
        except ProtocolError as exc:
            job.status, job.error = RunStatus.FAILED, str(exc)
            job.save(update_fields=["status", "error"])
            return False
        job.status = RunStatus.QUEUED
        job.error = ""
        job.finished_at = None
        job.heartbeat_at = None
        job.waiting_for, job.waiting_until = "", None  # a new wait gets a new deadline
        update = ["status", "error", "finished_at", "heartbeat_at", "waiting_for", "waiting_until"]
        if note:
            job.recoveries += 1
            job.recovery_note = recovery_notes_join(earlier=job.recovery_note, note=note)
            update += ["recoveries", "recovery_note"]
        job.save(update_fields=update)
        job_enqueue(kind=kind, enqueue=enqueue, job_id=job.pk, seq=seq)
        batch_id = getattr(job, "batch_id", None)
        if batch_id:
            kind.batch_model._default_manager.filter(pk=batch_id).exclude(status=BatchStatus.RUNNING).update(
                status=BatchStatus.RUNNING, finished_at=None
            )
    return True


def batch_retry(*, kind: Kind, batch_id: int, enqueue: Enqueue) -> int:
    """Resume every failed and cancelled job of the batch from its last finished call."""
    job_ids = kind.jobs.filter(
        batch_id=batch_id, status__in=[RunStatus.FAILED, RunStatus.CANCELLED]
    ).values_list("pk", flat=True)
    return sum(
        1 for job_id in list(job_ids) if job_resume(kind=kind, job_id=job_id, enqueue=enqueue, retry=True)
    )

"""Persisting a completed provider call: the turn and its run's counters, atomically."""

from __future__ import annotations

import json
from datetime import datetime

from django.db import connection, transaction
from django.db.models import F

from generation.llm import Completion
from generation.models import GenerationRun, RunStatus, Turn
from generation.strategies import Call

ACTIVE = (RunStatus.QUEUED, RunStatus.RUNNING)

# One statement, one round trip: this runs once per provider call, and on a busy
# database the three round trips of BEGIN / INSERT / UPDATE / COMMIT cost more than
# the insert itself. A unique violation on (run, seq) aborts the whole statement.
_PERSIST_SQL = """
WITH turn AS (
    INSERT INTO {turn} (run_id, seq, step, phase, role, messages, request_params, reply, reasoning,
                        prompt_tokens, completion_tokens, latency_ms, attempts, error, created_at)
    VALUES (%(run)s, %(seq)s, %(step)s, %(phase)s, %(role)s, %(messages)s::jsonb, %(params)s::jsonb,
            %(reply)s, %(reasoning)s, %(prompt)s, %(completion)s, %(latency)s, %(attempts)s, '', %(beat)s)
    RETURNING run_id
)
UPDATE {run} AS r SET
    calls_done = %(done)s,
    prompt_tokens = r.prompt_tokens + %(prompt)s,
    completion_tokens = r.completion_tokens + %(completion)s,
    heartbeat_at = CASE WHEN r.status = ANY(%(active)s) THEN %(beat)s ELSE r.heartbeat_at END,
    current_step = CASE WHEN r.status = ANY(%(active)s) THEN %(next_step)s ELSE r.current_step END,
    current_phase = CASE WHEN r.status = ANY(%(active)s) THEN %(next_phase)s ELSE r.current_phase END
FROM turn WHERE r.id = turn.run_id
RETURNING r.status
"""


def turn_persist(
    *,
    run: GenerationRun,
    call: Call,
    completion: Completion,
    calls_done: int,
    earlier_attempts: int,
    progress: dict,
    beat: datetime,
) -> bool:
    """Save the turn of ``call`` and the run's counters; while the run is active also
    its heartbeat and ``progress`` (current step and phase). Returns whether the run
    is still active (a cancelled run keeps the turn). Raises IntegrityError when the
    call was persisted already."""
    attempts = earlier_attempts + completion.attempts
    if connection.vendor == "postgresql" and not earlier_attempts:
        sql = _PERSIST_SQL.format(turn=Turn._meta.db_table, run=GenerationRun._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(
                sql,
                {
                    "run": run.pk,
                    "seq": call.seq,
                    "step": call.step,
                    "phase": call.phase,
                    "role": call.role,
                    "messages": json.dumps(call.messages, ensure_ascii=False),
                    "params": json.dumps(call.params),
                    "reply": completion.text,
                    "reasoning": completion.reasoning,
                    "prompt": completion.prompt_tokens,
                    "completion": completion.completion_tokens,
                    "latency": completion.latency_ms,
                    "attempts": attempts,
                    "beat": beat,
                    "done": calls_done,
                    "active": [str(s) for s in ACTIVE],
                    "next_step": progress.get("current_step", call.step),
                    "next_phase": progress["current_phase"],
                },
            )
            return cursor.fetchone()[0] in ACTIVE
    with transaction.atomic():
        if earlier_attempts:  # the failed attempt's turn makes way for the real one
            Turn.objects.filter(run=run, seq=call.seq).exclude(error="").delete()
        Turn.objects.create(
            run=run,
            seq=call.seq,
            step=call.step,
            phase=call.phase,
            role=call.role,
            messages=call.messages,
            request_params=call.params,
            reply=completion.text,
            reasoning=completion.reasoning,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            latency_ms=completion.latency_ms,
            attempts=attempts,
        )
        counters = {
            "calls_done": calls_done,
            "prompt_tokens": F("prompt_tokens") + completion.prompt_tokens,
            "completion_tokens": F("completion_tokens") + completion.completion_tokens,
        }
        active = GenerationRun.objects.filter(pk=run.pk, status__in=ACTIVE).update(
            heartbeat_at=beat, **counters, **progress
        )
        if not active:
            GenerationRun.objects.filter(pk=run.pk).update(**counters)
    return bool(active)

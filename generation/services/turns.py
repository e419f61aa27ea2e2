"""Persisting a completed provider call: the turn and its run's counters, atomically."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import F

from core.llm.client import Completion
from generation.models import GenerationRun, RunStatus, Turn
from generation.strategies import Call

ACTIVE = (RunStatus.QUEUED, RunStatus.RUNNING)


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

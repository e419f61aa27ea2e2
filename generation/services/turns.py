"""Persisting a completed provider call of a generation run as its turn."""

from __future__ import annotations

from core.llm.client import Completion
from generation.models import GenerationRun, Turn
from generation.strategies import Call


def turn_create(*, run: GenerationRun, call: Call, completion: Completion, earlier_attempts: int) -> Turn:
    """Save the turn of ``call`` (in the engine's transaction, with the run's counters).
    Raises IntegrityError when the call was persisted already."""
    if earlier_attempts:  # the failed attempt's turn makes way for the real one
        Turn.objects.filter(run=run, seq=call.seq).exclude(error="").delete()
    return Turn.objects.create(
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
        attempts=earlier_attempts + completion.attempts,
        wait_ms=completion.wait_ms,
        rate_limited=min(completion.rate_limited, 32767),
    )

"""The judge's protocol on the LLM batch engine: a generator, like a generation
strategy's, that yields the provider calls and returns the sheet. Pure (no ORM).

For each sample it asks once; an answer that fails the checks is asked again once,
with the problems (the re-ask); an answer still invalid ends the protocol with the
reason. When every sample is valid, the samples are combined into one sheet. The
calls depend only on the replies, so replaying the stored replies rebuilds the
protocol's state exactly (the engine's resume).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from generation.strategies import Call
from judging.answer import SheetShape, answer_check, samples_combine
from judging.prompt import reask_messages

ROLE = "judge"


def call_phase(attempt: int) -> str:
    return f"attempt {attempt}"


def call_attempt(phase: str) -> int:
    return int(phase.rsplit(" ", 1)[1])


@dataclass(frozen=True)
class JudgeResult:
    """The sheet's values (entry path -> value), or why there is none."""

    values: dict[str, Any] | None
    error: str = ""


def judge_protocol(
    *, messages: list[dict[str, str]], params: dict[str, Any], samples: int, shape: SheetShape
) -> Generator[Call, str, JudgeResult]:
    """``samples`` answers to ``messages``, each asked again once if invalid. A call's
    ``step`` is its sample and its ``phase`` its attempt (``attempt 2`` is the re-ask)."""
    seq = 0
    valid: list[dict[str, Any]] = []
    for sample in range(1, samples + 1):
        asked = messages
        for attempt in (1, 2):
            reply = yield Call(
                seq=seq, step=sample, phase=call_phase(attempt), role=ROLE, messages=asked, params=params
            )
            seq += 1
            checked = answer_check(shape, reply)
            if checked.ok:
                valid.append(checked.values or {})
                break
            if attempt == 2:
                return JudgeResult(
                    None,
                    f"Sample {sample}: the answer was invalid twice; last problems: "
                    + "; ".join(checked.errors),
                )
            asked = reask_messages(messages, reply, checked.errors)
    combined = samples_combine(shape, valid)
    if not combined.ok:
        return JudgeResult(None, "The combined samples are not a valid sheet: " + "; ".join(combined.errors))
    return JudgeResult(combined.values)

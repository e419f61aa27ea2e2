"""Resuming: persisted replies rebuild a run's state and give the first missing call."""

import pytest

from generation.strategies import (
    Call,
    Done,
    ProtocolError,
    protocol_for,
    protocol_next,
    protocol_run,
    resolve_params,
    task_for,
)


def fresh(strategy="teamllm"):
    return protocol_for(strategy=strategy, task=task_for("SCEN"), params=resolve_params(strategy=strategy))


def reply(call):
    return f"reply {call.seq}"


def test_replaying_replies_gives_the_same_next_call_as_an_uninterrupted_run():
    calls, answers = protocol_run(fresh(), reply)
    for k in (0, 1, 7, 20, 33):
        replies = {c.seq: reply(c) for c in calls[:k]}
        nxt = protocol_next(fresh(), replies)
        assert isinstance(nxt, Call)
        assert nxt == calls[k]  # same seq, role, params and exact messages


def test_all_replies_present_gives_the_answers():
    calls, answers = protocol_run(fresh(), reply)
    done = protocol_next(fresh(), {c.seq: reply(c) for c in calls})
    assert isinstance(done, Done) and done.answers == answers


def test_persisted_turns_that_do_not_fit_the_protocol_are_caught():
    calls, _ = protocol_run(fresh(), reply)
    replies = {c.seq: reply(c) for c in calls[:5]}
    known = {c.seq: (c.step, c.phase, c.role) for c in calls[:5]}
    known[3] = (0, "warm_up", "Plant")  # seq 3 was the Implementer
    with pytest.raises(ProtocolError):
        protocol_next(fresh(), replies, known)

"""LLM Discussion and Multi-Agent Debate run TeamLLM's step structure with their role sets."""

import json
from pathlib import Path

from generation.strategies import protocol_for, protocol_run, resolve_params, task_for

DATA = Path(__file__).resolve().parents[2] / "generation" / "data"


def run(strategy, **overrides):
    params = resolve_params(strategy=strategy, overrides=overrides)
    return protocol_run(
        protocol_for(strategy=strategy, task=task_for("S"), params=params), lambda c: f"<{c.role} {c.seq}>"
    )


def test_llm_discussion_uses_its_roles_with_the_first_as_leader():
    roles = [r["Agent_name"] for r in json.loads((DATA / "llm_discussion_roles.json").read_text())]
    calls, answers = run("llm_discussion")
    assert len(calls) == 34
    assert [c.role for c in calls[:4]] == roles
    step1 = [(c.phase, c.role) for c in calls if c.step == 1]
    assert step1 == [("initiation", roles[0])] + [("perspective", r) for r in roles[1:]] + [
        ("consensus", roles[0])
    ]
    assert (
        "Your role in the team is Futurist"
        in next(c for c in calls if c.role == "Futurist").messages[-1]["content"]
    )
    assert answers == [f"<{roles[0]} {c.seq}>" for c in calls if c.phase == "consensus"]
    assert {c.params["temperature"] for c in calls} == {0.6}


def test_mad_moderates_a_two_round_debate_per_step():
    calls, answers = run("mad")
    assert len(calls) == 3 + 6 * (1 + 2 * 2 + 1)
    step4 = [c.role for c in calls if c.step == 4]
    assert step4 == ["Moderator", "Debater A", "Debater B", "Debater A", "Debater B", "Moderator"]
    rebuttal = [c for c in calls if c.step == 4][3].messages[-1]["content"]
    assert "Debater B says:" in rebuttal  # the second round answers the other side
    assert "You are a moderator." in calls[0].messages[-1]["content"]
    assert len(answers) == 6


def test_mad_rounds_can_be_set_by_the_condition():
    calls, _ = run("mad", rounds=1)
    assert len(calls) == 3 + 6 * 4

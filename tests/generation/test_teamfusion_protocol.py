"""TeamFusion: proxies per preference profile, explicit agreements, synthesis, refinement."""

import pytest

from generation.strategies import ParameterError, protocol_for, protocol_run, resolve_params, task_for

PROFILES = [
    {"name": "Ada", "preferences": "I want bold technology."},
    {"name": "Ben", "preferences": "I care about fairness for fishers."},
    {"name": "Cy", "preferences": "I need cheap, feasible plans."},
]


def run(**overrides):
    params = resolve_params(strategy="teamfusion", overrides=overrides, profiles=PROFILES)
    return protocol_run(
        protocol_for(strategy="teamfusion", task=task_for("S"), params=params),
        lambda c: f"<{c.role} {c.phase} {c.seq}>",
    )


def test_teamfusion_step_structure():
    calls, answers = run()
    assert len(calls) == 6 * 12
    step2 = [(c.phase, c.role) for c in calls if c.step == 2]
    names = ["Ada", "Ben", "Cy"]
    assert step2 == (
        [("proposal", n) for n in names]
        + [("discussion", n) for n in names]
        + [("agreements", "Synthesizer"), ("synthesis", "Synthesizer")]
        + [("critique", n) for n in names]
        + [("revision", "Synthesizer")]
    )
    assert answers == [f"<Synthesizer revision {c.seq}>" for c in calls if c.phase == "revision"]
    assert {c.params["temperature"] for c in calls if c.role != "Synthesizer"} == {0.7}
    assert {c.params["temperature"] for c in calls if c.role == "Synthesizer"} == {0.4}


def test_each_proxy_is_conditioned_on_its_member_and_sees_the_discussion():
    calls, _ = run()
    ben = next(c for c in calls if c.role == "Ben")
    assert "I care about fairness for fishers." in ben.messages[0]["content"]
    assert "I want bold technology." not in ben.messages[0]["content"]
    discussion = next(c for c in calls if c.step == 1 and c.phase == "discussion" and c.role == "Cy")
    text = discussion.messages[-1]["content"]
    assert all(f"{n} says: <{n} proposal" in text for n in ("Ada", "Ben", "Cy"))
    assert "Ada says: <Ada discussion" in text and "AGREE" in text and "DISAGREE" in text
    agreements = next(c for c in calls if c.step == 1 and c.phase == "agreements")
    assert "AGREEMENTS" in agreements.messages[-1]["content"]
    assert "Cy says: <Cy discussion" in agreements.messages[-1]["content"]


def test_refinement_critiques_the_draft_and_revises_it():
    calls, _ = run()
    draft = next(c for c in calls if c.step == 3 and c.phase == "synthesis")
    critique = next(c for c in calls if c.step == 3 and c.phase == "critique")
    assert f"<Synthesizer synthesis {draft.seq}>" in critique.messages[-1]["content"]
    revision = next(c for c in calls if c.step == 3 and c.phase == "revision")
    assert "Ada says: <Ada critique" in revision.messages[-1]["content"]


def test_agents_start_each_step_afresh_but_see_earlier_answers():
    calls, _ = run()
    proposal = next(c for c in calls if c.step == 2 and c.phase == "proposal" and c.role == "Ada")
    assert [m["role"] for m in proposal.messages] == ["system", "user"]
    step1_answer = next(c for c in calls if c.step == 1 and c.phase == "revision")
    assert f"<Synthesizer revision {step1_answer.seq}>" in proposal.messages[-1]["content"]


def test_without_refinement_the_synthesis_is_the_answer():
    calls, answers = run(refinement_rounds=0)
    assert len(calls) == 6 * 8
    assert answers == [f"<Synthesizer synthesis {c.seq}>" for c in calls if c.phase == "synthesis"]


def test_teamfusion_needs_two_profiles():
    with pytest.raises(ParameterError):
        resolve_params(strategy="teamfusion", profiles=PROFILES[:1])

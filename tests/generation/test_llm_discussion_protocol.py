"""LLM Discussion as Lu et al. (2024) run it: peers, every member every round, the
last round asks for the final answers; the strings are the method's published code's."""

import json
from pathlib import Path

import pytest

from generation.strategies import ParameterError, protocol_for, protocol_run, resolve_params, task_for
from tests.generation import release_reference as ref

DATA = Path(__file__).resolve().parents[2] / "generation" / "data"
ROLES = json.loads((DATA / "llm_discussion_roles.json").read_text(encoding="utf-8"))
NAMES = [r["Agent_name"] for r in ROLES]
SCENARIO = "In 2040 the ocean is a soup."
INITIATE = "Initiate a discussion with others to collectively complete the following task: "
PROMPT_1 = "You are in a group discussion with other teammates; as a result, answer as diversely and creatively as you can."


def role_prompt(role):
    return (
        f"You are a {role['Agent_name']} whose specialty is {role['Role_Speciality']}. {role['Role_Prompt']} "
        "Remember to claim your role in the beginning of each conversation. "
    )


def run(**overrides):
    params = resolve_params(strategy="llm_discussion", overrides=overrides)
    return protocol_run(
        protocol_for(strategy="llm_discussion", task=task_for(SCENARIO), params=params),
        lambda c: f"<{c.role} {c.step}.{c.phase}>",
    )


def test_every_member_speaks_every_round_for_five_rounds_without_a_leader():
    calls, answers = run()
    assert len(calls) == 6 * 5 * 4
    step1 = [(c.phase, c.role) for c in calls if c.step == 1]
    phases = [f"round {n}" for n in range(1, 5)] + ["final"]
    assert step1 == [(p, n) for p in phases for n in NAMES]
    assert all(c.params == {"temperature": 0.6, "top_p": 0.9} for c in calls)
    # the step answer: the first member's final answer (the method keeps each member's)
    assert answers == [f"<Environmentalist {s}.final>" for s in range(1, 7)]
    _, chosen = run(answer_from="Futurist")
    assert chosen[0] == "<Futurist 1.final>"


def test_the_message_lists_of_a_step_are_the_methods():
    calls, _ = run(rounds=3)
    system = (
        ref.scenario(SCENARIO)
        + "\n\n"
        + "All responses should be in Chinese, with clear language and accurate logic."
    )
    step2 = [c for c in calls if c.step == 2]
    question = (
        "The following is the historical record up to now: \n\nThe answer of Step-1 is：\n<Environmentalist 1.final>"
        + "\n\n"
        + ref.step_prompt(2)
    )
    futurist = [c for c in step2 if c.role == "Futurist"]
    role = role_prompt(ROLES[2])
    first = role + INITIATE + question + PROMPT_1
    others = "These are the solutions to the problem from other agents:\n" + "".join(
        f"One agent solution: ```<{n} 2.round 1>```\n" for n in NAMES if n != "Futurist"
    )
    second = role + others + question + PROMPT_1
    others_final = "These are the solutions to the problem from other agents:\n" + "".join(
        f"One agent solution: ```<{n} 2.round 2>```\n" for n in NAMES if n != "Futurist"
    )
    last = (
        role
        + others_final
        + question
        + PROMPT_1
        + " This is the last round of the discussion, please finalize and present your final answer for this step; "
        "it must meet the requirements in [Step_Output]. \n\n"
    )
    assert futurist[-1].messages == [
        {"role": "system", "content": system},
        {"role": "user", "content": first},
        {"role": "assistant", "content": "<Futurist 2.round 1>"},
        {"role": "user", "content": second},
        {"role": "assistant", "content": "<Futurist 2.round 2>"},
        {"role": "user", "content": last},
    ]


def test_rounds_are_a_setting_and_checked():
    calls, _ = run(rounds=1)
    assert len(calls) == 6 * 4 and {c.phase for c in calls} == {"final"}
    with pytest.raises(ParameterError):
        resolve_params(strategy="llm_discussion", overrides={"rounds": 0})
    with pytest.raises(ParameterError):
        resolve_params(strategy="llm_discussion", overrides={"answer_from": "Nobody"})

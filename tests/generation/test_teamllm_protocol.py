"""TeamLLM's protocol: the exact calls, and each prompt composed as the reference says."""

import json
from pathlib import Path

import pytest

from generation.strategies import protocol_for, protocol_run, resolve_params, task_for
from generation.strategies.base import cgpst_steps

DATA = Path(__file__).resolve().parents[2] / "generation" / "data"
PROMPTS = json.loads((DATA / "prompts.json").read_text(encoding="utf-8"))
ROLES = json.loads((DATA / "team_role.json").read_text(encoding="utf-8"))
SCENARIO = "In 2040 the ocean around Hawaii has turned into a soup of microplastics."
CO, PL, ME, IMP = "Co-Ordinator", "Plant", "Monitor Evaluator", "Implementer"


def run_protocol(**overrides):
    params = resolve_params(strategy="teamllm", overrides=overrides)
    return protocol_run(
        protocol_for(strategy="teamllm", task=task_for(SCENARIO), params=params),
        lambda call: f"<reply {call.seq} by {call.role}>",
    )


def role_play(name):
    role = next(r for r in ROLES if r["Agent_name"] == name)
    others = ", ".join(r["Agent_name"] for r in ROLES if r["Agent_name"] != name)
    return (
        PROMPTS["Team_Role_Setting"]
        .replace("{Team_Role}", name)
        .replace("{Role_Speciality}", role["Role_Speciality"])
        .replace("{Other_Members}", others)
        .replace("{Role_Prompt}", role["Role_Prompt"])
    )


def user(call):
    assert call.messages[-1]["role"] == "user"
    return call.messages[-1]["content"]


def test_teamllm_makes_34_calls_in_the_papers_order_and_temperatures():
    calls, answers = run_protocol()
    assert len(calls) == 34
    assert [c.seq for c in calls] == list(range(34))
    expected = [(0, "warm_up", r) for r in (CO, PL, ME, IMP)]
    for step in range(1, 7):
        expected += [(step, "initiation", CO), (step, "perspective", PL), (step, "perspective", ME)]
        expected += [(step, "perspective", IMP), (step, "consensus", CO)]
    assert [(c.step, c.phase, c.role) for c in calls] == expected
    temperatures = {CO: 0.5, PL: 0.8, ME: 0.4, IMP: 0.4}
    assert all(c.params == {"temperature": temperatures[c.role], "top_p": 0.9} for c in calls)
    # the consensus replies are the six step answers
    assert answers == [f"<reply {c.seq} by {CO}>" for c in calls if c.phase == "consensus"]


def test_every_agent_gets_the_team_system_prompt_and_keeps_its_own_messages():
    calls, _ = run_protocol()
    system = "\n\n".join(
        [
            PROMPTS["FPSP_Overall_Description_Team"],
            PROMPTS["Future_Scenario"].replace("{Future_Scenario}", SCENARIO),
            PROMPTS["Emphasis_Team"],
        ]
    )
    assert all(c.messages[0] == {"role": "system", "content": system} for c in calls)
    assert "All responses should be in Chinese" in system
    # the Plant's list: its warm-up exchange, then its step-1 prompt (nobody else's turns)
    plant_step1 = next(c for c in calls if c.role == PL and c.step == 1)
    assert [m["role"] for m in plant_step1.messages] == ["system", "user", "assistant", "user"]
    assert plant_step1.messages[2]["content"] == "<reply 1 by Plant>"
    # the Co-Ordinator at the step-6 consensus: warm-up + 5 x (initiation, consensus) + initiation 6
    co_last = calls[-1]
    assert len(co_last.messages) == 1 + 2 * 12 + 1


def test_warm_up_opens_with_the_co_ordinator_and_members_introduce_themselves():
    calls, _ = run_protocol()
    assert user(calls[0]) == role_play(CO) + "\n\n" + PROMPTS["Team_Warm_Up"]
    monitor = user(calls[2])
    assert monitor.startswith(role_play(ME))
    assert "Co-Ordinator says: <reply 0 by Co-Ordinator>" in monitor
    assert "Plant says: <reply 1 by Plant>" in monitor
    assert monitor.endswith("introduce yourself, within 120 words.")
    assert monitor.index("Co-Ordinator says") < monitor.index("Plant says")


def test_initiation_carries_the_step_template_and_initiation_prompt():
    calls, _ = run_protocol()
    step3 = cgpst_steps()[2]
    initiation = next(c for c in calls if c.step == 3 and c.phase == "initiation")
    step_template = (
        PROMPTS["Task_Step"]
        .replace("{Step_Number}", "3")
        .replace("{Step_Name}", step3.name)
        .replace("{Step_Description}", step3.description)
        .replace("{Step_Output}", step3.output)
    )
    assert user(initiation) == "\n\n".join([role_play(CO), step_template, PROMPTS["Task_Initiation"]])


def test_perspective_sharing_sees_earlier_answers_and_this_steps_transcript_only():
    calls, _ = run_protocol()
    by_seq = {c.seq: c for c in calls}
    implementer_step2 = next(c for c in calls if c.step == 2 and c.role == IMP)
    text = user(implementer_step2)
    assert text.startswith(role_play(IMP))
    step1_answer = f"<reply {next(c.seq for c in calls if c.step == 1 and c.phase == 'consensus')} by {CO}>"
    assert step1_answer in text  # log_history
    for seq in (9, 10, 11):  # step 2: initiation, Plant, Monitor Evaluator
        assert f"{by_seq[seq].role} says: <reply {seq} by {by_seq[seq].role}>" in text
    assert "<reply 5 by Plant>" not in text  # step 1's discussion stays in step 1
    assert "<reply 1 by Plant>" not in text  # nor the warm-up


def test_consensus_prompt_carries_earlier_answers_and_this_steps_transcript():
    calls, _ = run_protocol()
    consensus = next(c for c in calls if c.step == 3 and c.phase == "consensus")
    text = user(consensus)
    assert text.startswith(role_play(CO) + "\n\nThe information for Step 3 is as follows:")
    assert text.endswith(PROMPTS["Converge"].replace("{Step_Number}", "3"))
    answers = [f"<reply {c.seq} by {CO}>" for c in calls if c.phase == "consensus"]
    assert answers[0] in text and answers[1] in text and answers[2] not in text
    step3 = [c for c in calls if c.step == 3 and c.phase != "consensus"]
    lines = [f"{c.role} says: <reply {c.seq} by {c.role}>" for c in step3]
    positions = [text.index(line) for line in lines]
    assert positions == sorted(positions)  # in speaking order
    assert text.index(answers[1]) < positions[0]  # earlier answers, then the transcript


@pytest.mark.parametrize("rounds, expected", [(1, 34), (2, 52), (3, 70)])
def test_rounds_of_perspective_sharing_are_a_setting(rounds, expected):
    calls, _ = run_protocol(rounds=rounds)
    assert len(calls) == expected
    step1 = [c.role for c in calls if c.step == 1]
    assert step1 == [CO] + [PL, ME, IMP] * rounds + [CO]


def test_language_is_a_setting():
    calls, _ = run_protocol(language="en")
    assert "All responses should be in English" in calls[0].messages[0]["content"]
    assert "Chinese" not in calls[0].messages[0]["content"]


def test_a_condition_can_override_one_roles_temperature():
    calls, _ = run_protocol(temperatures={"Plant": 1.1})
    assert {c.params["temperature"] for c in calls if c.role == PL} == {1.1}
    assert {c.params["temperature"] for c in calls if c.role == CO} == {0.5}

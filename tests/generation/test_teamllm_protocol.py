"""TeamLLM's and the single model's protocols: every message list exactly as the
release's experiment code builds it (tests/generation/release_reference.py)."""

import pytest

from generation.strategies import ParameterError, protocol_for, protocol_run, resolve_params, task_for
from tests.generation import release_reference as ref

SCENARIO = "In 2040 the ocean around Hawaii has turned into a soup of microplastics."
CO, PL, ME, IMP = "Co-Ordinator", "Plant", "Monitor Evaluator", "Implementer"


def reply_for(role, messages):
    """Distinct replies; the Co-Ordinator's contain a full-width colon (as Chinese answers
    do), whose first occurrence the release's log keeps the text after."""
    n = sum(1 for m in messages if m["role"] == "user")
    if role == CO:
        return f"第{n}轮答案：\n1. {role} item {n}\n2. 另一项：细节"
    return f"<{role} reply {n}>"


def run_protocol(strategy="teamllm", **overrides):
    params = resolve_params(strategy=strategy, overrides=overrides)
    return protocol_run(
        protocol_for(strategy=strategy, task=task_for(SCENARIO), params=params),
        lambda call: reply_for(call.role, call.messages),
    )


@pytest.mark.parametrize("rounds", [1, 2])
def test_every_teamllm_message_list_is_the_releases(rounds):
    calls, answers = run_protocol(rounds=rounds)
    expected = ref.teamllm(SCENARIO, reply_for, rounds=rounds)
    assert len(calls) == len(expected) == 4 + 6 * (1 + 4 * rounds)
    for call, (role, messages) in zip(calls, expected, strict=True):
        assert call.role == role
        assert call.messages == messages, f"call {call.seq} ({call.step}, {call.phase}, {call.role})"
    # the last consensus of each step is its answer
    assert (
        answers
        == [c.messages and reply_for(CO, c.messages) for c in calls if c.phase == "consensus"][
            rounds - 1 :: rounds
        ]
    )


def test_teamllm_strings_as_the_release_sends_them():
    calls, _ = run_protocol()
    plant_intro = calls[1].messages[-1]["content"]
    assert "The other team members are Co-Ordinator、Monitor Evaluator、Implementer," in plant_intro
    assert "\n\nThe following is the historical record up to now: Co-Ordinator says: " in plant_intro
    assert plant_intro.endswith(
        "Please note, this stage does not involve tasks, only introduce yourself. "
        "Keep your introduction within 120 words."
    )
    assert calls[0].messages[-1]["content"].endswith("\n" + ref.PROMPTS["Team_Warm_Up"])
    plant_step2 = next(c for c in calls if c.step == 2 and c.role == PL).messages[-1]["content"]
    # the text after the first full-width colon of the step-1 consensus
    assert "The answer of Step-1 is：\n1. Co-Ordinator item 3\n2. 另一项：细节" in plant_step2
    consensus = next(c for c in calls if c.step == 1 and c.phase == "consensus").messages[-1]["content"]
    assert "<Implementer reply 2>The discussion for Step 1 has concluded." in consensus  # no separator


def test_teamllm_temperatures_and_top_p():
    calls, _ = run_protocol()
    temperatures = {CO: 0.5, PL: 0.8, ME: 0.4, IMP: 0.4}
    assert all(c.params == {"temperature": temperatures[c.role], "top_p": 0.9} for c in calls)
    params = resolve_params(strategy="teamllm", top_p_as_released=True)
    assert params["top_p"] is None
    calls, _ = protocol_run(
        protocol_for(strategy="teamllm", task=task_for(SCENARIO), params=params), lambda c: "x"
    )
    assert all(c.params == {"temperature": temperatures[c.role]} for c in calls)  # none sent


def test_every_single_model_message_list_is_the_releases():
    calls, answers = run_protocol("single")
    expected = ref.single(SCENARIO, reply_for)
    assert [(c.role, c.messages) for c in calls] == expected
    assert (
        calls[0]
        .messages[-1]["content"]
        .endswith('\n\nPlease provide the answer directly that meets the "Step Output" requirement!')
    )
    assert all(c.params == {"temperature": 0.6, "top_p": 0.9} for c in calls)
    assert len(answers) == 6


def test_language_is_a_setting():
    calls, _ = run_protocol(language="en")
    assert "All responses should be in English" in calls[0].messages[0]["content"]
    assert "Chinese" not in calls[0].messages[0]["content"]


def test_a_condition_can_override_one_roles_temperature():
    calls, _ = run_protocol(temperatures={"Plant": 1.1})
    assert {c.params["temperature"] for c in calls if c.role == PL} == {1.1}
    assert {c.params["temperature"] for c in calls if c.role == CO} == {0.5}


@pytest.mark.parametrize(
    "role_set, leader, members, calls_expected",
    [
        ("llm_discussion", "Environmentalist", ["Creative Professional", "Futurist", "Startup Founder"], 34),
        ("mad", "Moderator", ["Debater A", "Debater B"], 27),
    ],
)
def test_teamllm_style_discussion_runs_teamllms_protocol_with_another_role_set(
    role_set, leader, members, calls_expected
):
    calls, _ = run_protocol(role_set=role_set)
    assert len(calls) == calls_expected
    step1 = [(c.phase, c.role) for c in calls if c.step == 1]
    assert step1 == [("initiation", leader), *[("perspective", m) for m in members], ("consensus", leader)]
    assert {c.params["temperature"] for c in calls} == {0.6}
    assert f"Your role in the team is {leader}," in calls[0].messages[-1]["content"]
    assert "、".join(members) in calls[0].messages[-1]["content"]
    with pytest.raises(ParameterError):
        resolve_params(strategy="teamllm", overrides={"role_set": "unknown"})

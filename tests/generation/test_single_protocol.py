"""The single-model baseline: one conversation, six calls, temperature 0.6."""

import json
from pathlib import Path

from generation.strategies import protocol_for, protocol_run, resolve_params, task_for

PROMPTS = json.loads((Path(__file__).resolve().parents[2] / "generation/data/prompts.json").read_text())


def test_single_is_one_conversation_of_six_calls():
    params = resolve_params(strategy="single")
    calls, answers = protocol_run(
        protocol_for(strategy="single", task=task_for("SCENARIO TEXT"), params=params),
        lambda c: f"answer {c.step}",
    )
    assert len(calls) == 6
    assert [(c.step, c.phase, c.role) for c in calls] == [(n, "answer", "Individual") for n in range(1, 7)]
    assert all(c.params == {"temperature": 0.6, "top_p": 0.9} for c in calls)
    system = calls[0].messages[0]["content"]
    assert system.startswith(PROMPTS["FPSP_Overall_Description_Individual"])
    assert "SCENARIO TEXT" in system and system.endswith(PROMPTS["Emphasis_Individual"])
    # one conversation: each call carries every earlier question and answer
    last = calls[-1].messages
    assert len(last) == 1 + 2 * 5 + 1
    assert [m["content"] for m in last if m["role"] == "assistant"] == [f"answer {n}" for n in range(1, 6)]
    assert last[-1]["content"].startswith("The information for Step 6 is as follows:")
    assert last[-1]["content"].endswith(
        '\n\nPlease provide the answer directly that meets the "Step Output" requirement!'
    )
    assert answers == [f"answer {n}" for n in range(1, 7)]


def test_single_temperature_comes_from_the_condition():
    params = resolve_params(strategy="single", overrides={"temperature": 0.2}, language="en")
    calls, _ = protocol_run(protocol_for(strategy="single", task=task_for("S"), params=params), lambda c: "x")
    assert {c.params["temperature"] for c in calls} == {0.2}
    assert "in English" in calls[0].messages[0]["content"]

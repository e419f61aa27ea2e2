"""The no-role ablation: four unnamed members, each sees the answers before it."""

import json
from pathlib import Path

from generation.strategies import protocol_for, protocol_run, resolve_params, task_for

PROMPTS = json.loads((Path(__file__).resolve().parents[2] / "generation/data/prompts.json").read_text())
MEMBERS = ["Member 1", "Member 2", "Member 3", "Member 4"]


def run_protocol():
    params = resolve_params(strategy="ablation")
    return protocol_run(
        protocol_for(strategy="ablation", task=task_for("SCENARIO"), params=params),
        lambda c: f"<{c.role} at {c.seq}>",
    )


def test_ablation_calls_members_in_turn_and_takes_the_last_answer():
    calls, answers = run_protocol()
    assert len(calls) == 4 + 6 * 4
    assert [c.role for c in calls] == MEMBERS * 7
    assert [c.phase for c in calls[:4]] == ["warm_up"] * 4
    assert all(c.params == {"temperature": 0.6, "top_p": 0.9} for c in calls)
    assert answers == [f"<Member 4 at {c.seq}>" for c in calls if c.role == "Member 4" and c.step > 0]


def test_ablation_prompts_have_no_roles_and_show_earlier_members():
    calls, _ = run_protocol()
    system = calls[1].messages[0]["content"]
    expected = (
        PROMPTS["ablation_prompt"]
        .replace("{Agent_Name}", "Member 2")
        .replace("{Other_Members}", "Member 1、Member 3、Member 4")
    )
    assert system.startswith(expected)
    assert "Team_Role" not in system and "Co-Ordinator" not in system
    assert calls[0].messages[-1]["content"] == PROMPTS["ablation_warmup"]
    assert calls[1].messages[-1]["content"] == (
        "The following is the historical record up to now: Member 1 says: <Member 1 at 0>\n\n"
        + PROMPTS["ablation_warmup"]
    )
    member3_step2 = next(c for c in calls if c.step == 2 and c.role == "Member 3")
    text = member3_step2.messages[-1]["content"]
    step2 = [c for c in calls if c.step == 2]
    assert f"Member 1 says: <Member 1 at {step2[0].seq}>" in text
    assert f"Member 2 says: <Member 2 at {step2[1].seq}>" in text
    step1_answer = next(c for c in calls if c.step == 1 and c.role == "Member 4")
    # the earlier step's answer, in the release's wording
    assert f"The answer of Step-1 is：\n<Member 4 at {step1_answer.seq}>" in text
    assert "The information for Step 2 is as follows:" in text

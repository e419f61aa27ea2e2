"""TeamLLM without roles (the paper's ablation): four unnamed members with the
neutral ``ablation_prompt``; each answers in turn, seeing the answers given before
it; the last member's answer is the step answer. The release has no code for it:
its history lines are TeamLLM's as the release writes them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generation.strategies import base

MEMBERS = ("Member 1", "Member 2", "Member 3", "Member 4")
DEFAULTS: dict[str, Any] = {
    "language": "zh",
    # The paper gives no ablation temperature; without roles every member gets the
    # baseline's 0.6.
    "temperature": 0.6,
    "temperatures": {},
    "top_p": 0.9,
    "rounds": 1,
}

SOURCES: dict[str, str] = {
    "language": "study",
    "temperature": "ours",
    "temperatures": "ours",
    "top_p": "paper",
    "rounds": "release",
}


def member_system_prompt(task: base.TaskSpec, name: str, language: str) -> str:
    p = base.prompts()
    others = "、".join(m for m in MEMBERS if m != name)
    return base.join(
        base.fill(p["ablation_prompt"], Agent_Name=name, Other_Members=others),
        base.scenario_block(task),
        base.localize(p["Emphasis_Individual"], language),
    )


def protocol(*, task: base.TaskSpec, params: Mapping[str, Any]) -> base.Protocol:
    p = base.prompts()
    temperatures = base.role_temperatures(params, MEMBERS)
    members = [
        base.Agent(
            name,
            member_system_prompt(task, name, params["language"]),
            base.sampling(temperatures[name], params.get("top_p")),
        )
        for name in MEMBERS
    ]
    dialogue = base.Dialogue()
    header = p["Release_History_Header"]
    warm: list[str] = []
    yield from dialogue.ask_each(
        members,
        warm,
        step=0,
        phase="warm_up",
        content=lambda _member: base.join(header + "\n".join(warm) if warm else "", p["ablation_warmup"]),
    )

    log_his = [header]
    answers: list[str] = []
    answer_prompt = p["Ablation_Step_Answer"]
    for step in task.steps:
        prompt = base.step_prompt(step)
        step_history: list[str] = []
        answer = ""
        for _ in range(int(params["rounds"])):
            answer = yield from dialogue.ask_each(
                members,
                step_history,
                step=step.number,
                phase="member",
                # called at once, within this step: B023's late binding cannot bite
                content=lambda _member: base.join(prompt, "\n\n".join(log_his + step_history), answer_prompt),  # noqa: B023
            )
        log_his.append(base.log_answer(step.number, answer))
        answers.append(answer)
    return answers

"""TeamLLM (condition A): four Belbin roles, warm-up, then per step task initiation,
perspective sharing and consensus building, as in the study's reference.

The same protocol, with other role sets, runs the LLM Discussion and Multi-Agent
Debate baselines (:func:`team_protocol`): the first role leads (opens the warm-up,
initiates each step, writes the consensus answer), the others speak in turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from generation.strategies.base import (
    Agent,
    Dialogue,
    Protocol,
    TaskSpec,
    fill,
    join,
    localize,
    prompts,
    role_set,
    role_temperatures,
    sampling,
    says,
    scenario_block,
    section,
    step_answer_entry,
    step_prompt,
)

ROLES_FILE = "team_role.json"
DEFAULTS: dict[str, Any] = {
    "language": "zh",
    # The paper's Table 7.
    "temperatures": {"Co-Ordinator": 0.5, "Plant": 0.8, "Monitor Evaluator": 0.4, "Implementer": 0.4},
    "temperature": None,  # one temperature for every role, if a condition sets it
    "top_p": 0.9,
    "rounds": 1,  # rounds of perspective sharing per step
    "warm_up": True,
}


def team_system_prompt(task: TaskSpec, language: str) -> str:
    """Every agent's system prompt: team task description + scenario + team emphasis."""
    p = prompts()
    return join(
        p["FPSP_Overall_Description_Team"], scenario_block(task), localize(p["Emphasis_Team"], language)
    )


def role_play_prompt(role: Mapping[str, str], roles: Sequence[Mapping[str, str]]) -> str:
    others = [r["Agent_name"] for r in roles if r["Agent_name"] != role["Agent_name"]]
    return fill(
        prompts()["Team_Role_Setting"],
        Team_Role=role["Agent_name"],
        Role_Speciality=role["Role_Speciality"],
        Other_Members=", ".join(others),
        Role_Prompt=role["Role_Prompt"],
    )


def team_protocol(
    *, task: TaskSpec, params: Mapping[str, Any], roles: Sequence[Mapping[str, str]]
) -> Protocol:
    p = prompts()
    system = team_system_prompt(task, params["language"])
    temperatures = role_temperatures(params, [r["Agent_name"] for r in roles])
    agents = [
        Agent(r["Agent_name"], system, sampling(temperatures[r["Agent_name"]], params["top_p"]))
        for r in roles
    ]
    role_play = {a.name: role_play_prompt(r, roles) for a, r in zip(agents, roles, strict=True)}
    leader, members = agents[0], agents[1:]
    dialogue = Dialogue()

    if params.get("warm_up", True):
        transcript: list[str] = []
        opening = yield from dialogue.ask(
            leader, step=0, phase="warm_up", content=join(role_play[leader.name], p["Team_Warm_Up"])
        )
        transcript.append(says(leader.name, opening))
        for member in members:
            intro = yield from dialogue.ask(
                member,
                step=0,
                phase="warm_up",
                content=join(
                    role_play[member.name],
                    section(p["Warm_Up_Transcript_Header"], transcript),
                    p["Warm_Up_Introduce"],
                ),
            )
            transcript.append(says(member.name, intro))

    log_history: list[str] = []  # the agreed answers of the earlier steps
    answers: list[str] = []
    for step in task.steps:
        step_text = step_prompt(step)
        step_history: list[str] = []  # this step's transcript
        opening = yield from dialogue.ask(
            leader,
            step=step.number,
            phase="initiation",
            content=join(role_play[leader.name], step_text, p["Task_Initiation"]),
        )
        step_history.append(says(leader.name, opening))
        for _ in range(int(params["rounds"])):
            for member in members:
                view = yield from dialogue.ask(
                    member,
                    step=step.number,
                    phase="perspective",
                    content=join(
                        role_play[member.name],
                        section(p["Earlier_Answers_Header"], log_history),
                        section(p["Step_Transcript_Header"], step_history),
                    ),
                )
                step_history.append(says(member.name, view))
        answer = yield from dialogue.ask(
            leader,
            step=step.number,
            phase="consensus",
            content=join(
                role_play[leader.name],
                step_text,
                section(p["Earlier_Answers_Header"], log_history),
                section(p["Step_Transcript_Header"], step_history),
                fill(p["Converge"], Step_Number=step.number),
            ),
        )
        log_history.append(step_answer_entry(step, answer))
        answers.append(answer)
    return answers


def protocol(*, task: TaskSpec, params: Mapping[str, Any]) -> Protocol:
    return team_protocol(task=task, params=params, roles=role_set(ROLES_FILE))

"""TeamLLM (condition A): four Belbin roles, warm-up, then per step task initiation,
perspective sharing and consensus building, composed exactly as the release's
experiment code (``Collaboration.py``, ``RoleplayCollaboration``) sends them.

Every string that code adds to the templates of ``prompts.json`` is in
``supplementary_prompts.json`` (``Release_*``); the separators ('\\n' after the
warm-up role-play, none before ``Converge``) are the release's too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from generation.strategies import base

ROLES_FILE = "team_role.json"
# "TeamLLM-style discussion": TeamLLM's protocol with another method's role set (the
# first role leads). It is TeamLLM's structure, not that method: see generation/strategies/README.md.
ROLE_SETS = {"belbin": ROLES_FILE, "llm_discussion": "llm_discussion_roles.json", "mad": "mad_roles.json"}
OTHER_ROLE_SET_TEMPERATURE = 0.6  # the study's baseline temperature, for roles without one
DEFAULTS: dict[str, Any] = {
    "language": "zh",
    # The paper's Table 7 and the release's agents.py.
    "temperatures": {"Co-Ordinator": 0.5, "Plant": 0.8, "Monitor Evaluator": 0.4, "Implementer": 0.4},
    "temperature": None,  # one temperature for every role, if a condition sets it
    "top_p": 0.9,  # the paper; None sends none, as the release's code does
    "rounds": 1,  # the release's experiment.py: rounds = 1
    "role_set": "belbin",  # the paper's four Belbin roles
}

SOURCES: dict[str, str] = {
    "language": "study",
    "temperatures": "paper",
    "temperature": "ours",
    "top_p": "paper",
    "rounds": "release",
    "role_set": "paper",
}


def team_system_prompt(task: base.TaskSpec, language: str) -> str:
    """Every agent's system prompt: team task description + scenario + team emphasis."""
    p = base.prompts()
    return base.join(
        p["FPSP_Overall_Description_Team"],
        base.scenario_block(task),
        base.localize(p["Emphasis_Team"], language),
    )


def role_play_prompt(role: Mapping[str, str], roles: Sequence[Mapping[str, str]]) -> str:
    others = [r["Agent_name"] for r in roles if r["Agent_name"] != role["Agent_name"]]
    return base.fill(
        base.prompts()["Team_Role_Setting"],
        Team_Role=role["Agent_name"],
        Role_Speciality=role["Role_Speciality"],
        Other_Members="、".join(others),  # the release joins the names with '、'
        Role_Prompt=role["Role_Prompt"],
    )


def protocol(*, task: base.TaskSpec, params: Mapping[str, Any]) -> base.Protocol:
    p = base.prompts()
    chosen = params.get("role_set", "belbin")
    if chosen not in ROLE_SETS:
        raise ValueError(f"role_set must be one of {', '.join(ROLE_SETS)}")
    roles = base.role_set(ROLE_SETS[chosen])
    system = team_system_prompt(task, params["language"])
    if chosen != "belbin" and params.get("temperature") is None:
        params = {**params, "temperature": OTHER_ROLE_SET_TEMPERATURE}
    temperatures = base.role_temperatures(params, [r["Agent_name"] for r in roles])
    agents = [
        base.Agent(r["Agent_name"], system, base.sampling(temperatures[r["Agent_name"]], params.get("top_p")))
        for r in roles
    ]
    role_play = {a.name: role_play_prompt(r, roles) for a, r in zip(agents, roles, strict=True)}
    leader, members = agents[0], agents[1:]
    dialogue = base.Dialogue()
    header = p["Release_History_Header"]

    # Warm-up (step 0)
    warm: list[str] = []
    opening = yield from dialogue.ask(
        leader, step=0, phase="warm_up", content=role_play[leader.name] + "\n" + p["Team_Warm_Up"]
    )
    warm.append(base.says(leader.name, opening))
    yield from dialogue.ask_each(
        members,
        warm,
        step=0,
        phase="warm_up",
        content=lambda member: (
            role_play[member.name]
            + "\n\n"
            + header
            + "\n".join(warm)
            + "\n\n"
            + p["Release_Warm_Up_Introduce"]
        ),
    )

    log_his = [header]  # the header, then each agreed step answer
    answers: list[str] = []
    for step in task.steps:
        step_text = base.step_prompt(step)
        step_history: list[str] = []
        opening = yield from dialogue.ask(
            leader,
            step=step.number,
            phase="initiation",
            content=base.join(role_play[leader.name], step_text, p["Task_Initiation"]),
        )
        step_history.append(base.says(leader.name, opening))
        answer = ""
        for _ in range(int(params["rounds"])):
            yield from dialogue.ask_each(
                members,
                step_history,
                step=step.number,
                phase="perspective",
                # called at once, within this round: B023's late binding cannot bite
                content=lambda member: role_play[member.name] + "\n\n" + "\n\n".join(log_his + step_history),  # noqa: B023
            )
            # The release builds consensus at the end of every round; the last is the answer.
            answer = yield from dialogue.ask(
                leader,
                step=step.number,
                phase="consensus",
                content=role_play[leader.name]
                + "\n\n"
                + step_text
                + "\n\n"
                + "\n\n".join(log_his + step_history)
                + base.fill(p["Converge"], Step_Number=step.number),
            )
            step_history.append(base.says(leader.name, answer))
        log_his.append(base.log_answer(step.number, answer))
        answers.append(answer)
    return answers

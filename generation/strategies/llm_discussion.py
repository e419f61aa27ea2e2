"""LLM Discussion (Lu et al., 2024) with the role set of ``llm_discussion_roles.json``,
as the method's published code runs it: peers without a leader, each with its own
conversation; every member speaks in every round; in round 1 each initiates the
discussion of the task, in later rounds each sees the other members' answers of the
previous round; the last round asks for the final answer. One discussion per CGPST
step (the method has a single task); the answers of the earlier steps are part of
the task, in the release's wording. The step answer is one member's final answer
(``answer_from``): the method keeps every member's final answer and scores each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generation.strategies import base

ROLES_FILE = "llm_discussion_roles.json"
DEFAULTS: dict[str, Any] = {
    "language": "zh",
    # Ours: the study's baseline temperature. The method's OpenAI agent sends no temperature
    # and no top_p (the provider's defaults, 1.0 at OpenAI; lawraa/LLM-Discussion,
    # Experiments/multi_agent/agents.py, OpenAIAgent.generate_answer); only its local
    # Llama agent uses 0.6 and top_p 0.9.
    "temperature": 0.6,
    "temperatures": {},
    "top_p": 0.9,
    "rounds": 5,  # the method's published experiments
    "answer_from": "",  # the member whose final answer is the step answer; "" = the first
}

SOURCES: dict[str, str] = {**base.DISCUSSION_SOURCES, "answer_from": "ours"}


def role_prompt(role: Mapping[str, str]) -> str:
    return base.fill(
        base.prompts()["LLMD_Role"],
        Role=role["Agent_name"],
        Speciality=role["Role_Speciality"],
        Role_Prompt=role["Role_Prompt"],
    )


def protocol(*, task: base.TaskSpec, params: Mapping[str, Any]) -> base.Protocol:
    p = base.prompts()
    roles = base.role_set(ROLES_FILE)
    names = [r["Agent_name"] for r in roles]
    chosen = params.get("answer_from") or names[0]
    if chosen not in names:
        raise ValueError(f"answer_from must be one of {', '.join(names)}")
    temperatures = base.role_temperatures(params, names)
    system = base.join(base.scenario_block(task), base.language_requirement(params["language"]))
    rounds = int(params["rounds"])
    dialogue = base.Dialogue()
    answers: list[str] = []
    for step in task.steps:
        # A fresh discussion per step: each member's conversation holds only this task.
        agents = [base.Agent(n, system, base.sampling(temperatures[n], params.get("top_p"))) for n in names]
        question = base.single_task_step(answers, step)
        previous: dict[str, str] = {}
        for number in range(1, rounds + 1):
            last = number == rounds
            current: dict[str, str] = {}
            for agent, role in zip(agents, roles, strict=True):
                if number == 1:
                    body = p["LLMD_Initiate"] + question + p["LLMD_Discussion_Prompt"]
                else:
                    others = "".join(
                        base.fill(p["LLMD_Other_Solution"], Solution=previous[n])
                        for n in names
                        if n != agent.name
                    )
                    body = p["LLMD_Others_Header"] + others + question + p["LLMD_Discussion_Prompt"]
                    if last:
                        body += p["LLMD_Last_Round"]
                current[agent.name] = yield from dialogue.ask(
                    agent,
                    step=step.number,
                    phase="final" if last else f"round {number}",
                    content=role_prompt(role) + body,
                )
            previous = current
        answers.append(previous[chosen])
    return answers

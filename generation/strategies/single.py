"""Single model (condition B, the study's baseline): one conversation, one user
message per step, temperature 0.6, as the release's ``Collaboration.py`` (``Single``)
sends it: the step template, a blank line, and the release's suffix. A single-text task
is one call (``_text_protocol``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generation.strategies import base

ROLE = "Individual"
DEFAULTS: dict[str, Any] = {"language": "zh", "temperature": 0.6, "top_p": 0.9}

# Where each default comes from, shown on the condition page (see ``strategy_settings``).
SOURCES: dict[str, str] = {"language": "study", "temperature": "release", "top_p": "paper"}


def protocol(*, task: base.TaskSpec, params: Mapping[str, Any]) -> base.Protocol:
    if task.kind == base.TEXT_TASK:
        return (yield from _text_protocol(task=task, params=params))
    p = base.prompts()
    system = base.join(
        p["FPSP_Overall_Description_Individual"],
        base.scenario_block(task),
        base.localize(p["Emphasis_Individual"], params["language"]),
    )
    agent = base.Agent(ROLE, system, base.sampling(params["temperature"], params.get("top_p")))
    dialogue = base.Dialogue()
    answers = []
    for step in task.steps:
        answer = yield from dialogue.ask(
            agent,
            step=step.number,
            phase="answer",
            content=base.join(base.step_prompt(step), p["Release_Single_Step_Answer"]),
        )
        answers.append(answer)
    return answers


def _text_protocol(*, task: base.TaskSpec, params: Mapping[str, Any]) -> base.Protocol:
    """A single-text task (ours, not the study's): the language requirement as the system
    message, the prompt (the scenario's text) as the one user message, its reply the text."""
    agent = base.Agent(
        ROLE,
        base.language_requirement(params["language"]),
        base.sampling(params["temperature"], params.get("top_p")),
    )
    text = yield from base.Dialogue().ask(agent, step=1, phase="answer", content=task.scenario)
    return [text]

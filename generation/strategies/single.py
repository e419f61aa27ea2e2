"""Single model (condition B, the study's baseline): one conversation, one user
message per step, temperature 0.6, as the release's ``Collaboration.py`` (``Single``)
sends it: the step template, a blank line, and the release's suffix."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from generation.strategies.base import (
    Agent,
    Dialogue,
    Protocol,
    TaskSpec,
    join,
    localize,
    prompts,
    sampling,
    scenario_block,
    step_prompt,
)

ROLE = "Individual"
DEFAULTS: dict[str, Any] = {"language": "zh", "temperature": 0.6, "top_p": 0.9}

# Where each default comes from, shown on the condition page (see ``strategy_settings``).
SOURCES: dict[str, str] = {"language": "study", "temperature": "release", "top_p": "paper"}


def protocol(*, task: TaskSpec, params: Mapping[str, Any]) -> Protocol:
    p = prompts()
    system = join(
        p["FPSP_Overall_Description_Individual"],
        scenario_block(task),
        localize(p["Emphasis_Individual"], params["language"]),
    )
    agent = Agent(ROLE, system, sampling(params["temperature"], params.get("top_p")))
    dialogue = Dialogue()
    answers = []
    for step in task.steps:
        answer = yield from dialogue.ask(
            agent,
            step=step.number,
            phase="answer",
            content=join(step_prompt(step), p["Release_Single_Step_Answer"]),
        )
        answers.append(answer)
    return answers

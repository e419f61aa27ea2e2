"""TeamFusion (Liu et al., 2026) adapted to CGPST: one proxy agent per team member,
conditioned on that member's stated preferences (PreferenceProfile); per step a
structured discussion that makes agreements and disagreements explicit; a neutral
synthesizer writes the step answer; optional refinement rounds in which the proxies
critique the synthesis and the synthesizer revises it.

The exact message flow is documented in ``generation/strategies/README.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    sampling,
    says,
    scenario_block,
    section,
    step_answer_entry,
    step_prompt,
)

SYNTHESIZER = "Synthesizer"
DEFAULTS: dict[str, Any] = {
    "language": "zh",
    "proxy_temperature": 0.7,  # proxies argue for their member: some variety
    "synthesizer_temperature": 0.4,  # the synthesis should be faithful to the discussion
    "top_p": 0.9,
    "rounds": 1,  # rounds of structured discussion (after the proposals)
    "refinement_rounds": 1,  # critique + revision rounds (0 = none)
    # Filled from the active PreferenceProfiles when a run is created; a condition may
    # set its own list of {"name", "preferences"}.
    "profiles": [],
}


def protocol(*, task: TaskSpec, params: Mapping[str, Any]) -> Protocol:
    p = prompts()
    profiles = params["profiles"]
    if len(profiles) < 2:
        raise ValueError("TeamFusion needs at least two preference profiles")
    names = [prof["name"] for prof in profiles]
    if len(set(names)) != len(names) or SYNTHESIZER in names:
        raise ValueError("TeamFusion profile names must be distinct and not 'Synthesizer'")
    emphasis = localize(p["Emphasis_Individual"], params["language"])
    proxies = [
        Agent(
            prof["name"],
            join(
                p["TeamFusion_Team_Description"],
                scenario_block(task),
                fill(
                    p["TeamFusion_Proxy"],
                    Member_Name=prof["name"],
                    Other_Members=", ".join(n for n in names if n != prof["name"]),
                    Preferences=prof["preferences"],
                ),
                emphasis,
            ),
            sampling(params["proxy_temperature"], params["top_p"]),
        )
        for prof in profiles
    ]
    synthesizer = Agent(
        SYNTHESIZER,
        join(p["TeamFusion_Team_Description"], scenario_block(task), p["TeamFusion_Synthesizer"], emphasis),
        sampling(params["synthesizer_temperature"], params["top_p"]),
    )
    dialogue = Dialogue()
    log_history: list[str] = []
    answers: list[str] = []
    for step in task.steps:
        # Each agent starts every step afresh: the earlier answers carry the context
        # across steps, the transcript within the step (TeamLLM's dual history).
        for agent in (*proxies, synthesizer):
            agent.reset()
        earlier = section(p["Earlier_Answers_Header"], log_history)
        step_text = step_prompt(step)
        transcript: list[str] = []
        for proxy in proxies:
            proposal = yield from dialogue.ask(
                proxy,
                step=step.number,
                phase="proposal",
                content=join(
                    earlier,
                    step_text,
                    section(p["Step_Transcript_Header"], transcript),
                    p["TeamFusion_Propose"],
                ),
            )
            transcript.append(says(proxy.name, proposal))
        for _ in range(int(params["rounds"])):
            for proxy in proxies:
                # The proxy's own list already holds its proposal prompt; it now sees
                # everything said since, and answers with explicit agree/disagree.
                reply = yield from dialogue.ask(
                    proxy,
                    step=step.number,
                    phase="discussion",
                    content=join(section(p["Step_Transcript_Header"], transcript), p["TeamFusion_Discuss"]),
                )
                transcript.append(says(proxy.name, reply))
        yield from dialogue.ask(
            synthesizer,
            step=step.number,
            phase="agreements",
            content=join(
                earlier,
                step_text,
                section(p["Step_Transcript_Header"], transcript),
                fill(p["TeamFusion_Agreements"], Step_Number=step.number),
            ),
        )
        draft = yield from dialogue.ask(
            synthesizer,
            step=step.number,
            phase="synthesis",
            content=fill(p["TeamFusion_Synthesize"], Step_Number=step.number),
        )
        for _ in range(int(params["refinement_rounds"])):
            critiques: list[str] = []
            for proxy in proxies:
                critique = yield from dialogue.ask(
                    proxy,
                    step=step.number,
                    phase="critique",
                    content=fill(p["TeamFusion_Critique"], Step_Number=step.number, Draft=draft),
                )
                critiques.append(says(proxy.name, critique))
            draft = yield from dialogue.ask(
                synthesizer,
                step=step.number,
                phase="revision",
                content=join(
                    section(p["Critiques_Header"], critiques),
                    fill(p["TeamFusion_Revise"], Step_Number=step.number),
                ),
            )
        log_history.append(step_answer_entry(step, draft))
        answers.append(draft)
    return answers

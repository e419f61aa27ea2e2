"""TeamFusion (Liu et al., 2026) on CGPST, in the paper's phases: Represent (one proxy
agent per team member, conditioned on that member's stated preferences, with the
proxy guidelines the paper quotes), a structured discussion that makes agreements and
disagreements explicit, Synthesize (a neutral synthesizer writes the deliverable,
reading the discussion from its end), and further iterations in which the proxies
discuss the deliverable and the synthesizer refines it. After every synthesis each proxy rates, in a separate
conversation, how well the deliverable represents its member and how strong a
consensus it is: the paper's two measures, per iteration
(``generation.selectors.run_fusion_measures``).

The members are the study's member profiles (entered by an admin), frozen into the
run when it is created. The message flow is in ``generation/strategies/README.md``.

The paper gives no number of iterations, no temperatures and no prompts for a CGPST
step: the iterations (4), the temperatures (proxies 0.7, synthesizer 0.4) and the
prompts below are the product's choices, each a setting of the strategy (a
condition's ``parameters``: ``iterations``, ``proxy_temperature``,
``synthesizer_temperature``, ``prompts``), checked when a run resolves them. (The
"4 per task" in the seed file's "Simulated Author's Rebuttal" is machine-written, not
the authors' text.) Only the proxy guidelines are quoted from the paper.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from generation.strategies import base

SYNTHESIZER = "Synthesizer"
# The product's prompts (setting key -> template in supplementary_prompts.json, and the
# placeholders a replacement must keep so that the protocol can fill them).
PROMPTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "team_description": ("TeamFusion_Team_Description", ()),
    "proxy": ("TeamFusion_Proxy", ("Member_Name", "Preferences")),
    "synthesizer": ("TeamFusion_Synthesizer", ()),
    "discussion_header": ("TeamFusion_Discussion_Header", ()),
    "discuss": ("TeamFusion_Discuss", ()),
    "refine": ("TeamFusion_Refine", ("Draft",)),
    "synthesize": ("TeamFusion_Synthesize", ()),
    "rate": ("TeamFusion_Rate", ("Draft",)),
}


def default_prompts() -> dict[str, str]:
    """The product's TeamFusion prompts, by setting key."""
    texts = base.prompts()
    return {key: texts[name] for key, (name, _) in PROMPTS.items()}


# Every value here is the product's choice (the paper gives none for CGPST).
DEFAULTS: dict[str, Any] = {
    "language": "zh",
    "proxy_temperature": 0.7,  # ours: proxies argue, with some variety
    "synthesizer_temperature": 0.4,  # ours: the synthesis should be faithful to the discussion
    "top_p": 0.9,
    "iterations": 4,  # ours: the paper gives no number
    "turns": 1,  # speaking turns per proxy in each iteration's discussion
    # The study's active member profiles, frozen when a run is created; a condition
    # may set its own list of {"name", "preferences"}.
    "profiles": [],
    # ours; a condition may replace any of them (recorded with every run)
    "prompts": default_prompts(),
}

SOURCES: dict[str, str] = {
    "language": "study",
    "proxy_temperature": "ours",
    "synthesizer_temperature": "ours",
    "top_p": "paper",
    "iterations": "ours",
    "turns": "ours",
    "profiles": "study",
    "prompts": "ours",
}


def validate(params: Mapping[str, Any]) -> None:
    """A condition's TeamFusion settings beyond the shared ones (ValueError)."""
    given = params.get("prompts")
    if given is None:
        return
    if not isinstance(given, Mapping):
        raise ValueError("prompts must be an object {name: template}")
    unknown = set(given) - set(PROMPTS)
    if unknown:
        raise ValueError(
            f"unknown prompt(s): {', '.join(sorted(unknown))}; known: {', '.join(sorted(PROMPTS))}"
        )
    for key, text in given.items():
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"prompts.{key} must be a non-empty text")
        missing = [name for name in PROMPTS[key][1] if "{" + name + "}" not in text]
        if missing:
            raise ValueError(f"prompts.{key} must contain {', '.join('{' + m + '}' for m in missing)}")


RATING_PHASE = "rating"
_JSON = re.compile(r"\{.*?\}", re.S)


def phase(name: str, iteration: int) -> str:
    return f"{name} {iteration}"


def rating_values(reply: str) -> tuple[int | None, int | None]:
    """(representation, consensus) from a proxy's rating reply; None where unreadable."""
    found = _JSON.search(reply)
    data: Any = {}
    if found:
        try:
            data = json.loads(found[0])
        except ValueError:
            data = {}

    def value(key: str) -> int | None:
        raw = data.get(key) if isinstance(data, dict) else None
        try:
            number = int(raw)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return None
        return number if 1 <= number <= 5 else None

    return value("representation"), value("consensus")


def proxy_system(
    task: base.TaskSpec,
    profile: Mapping[str, str],
    names: list[str],
    language: str,
    texts: Mapping[str, str] | None = None,
) -> str:
    t = {**default_prompts(), **(texts or {})}
    return base.join(
        t["team_description"],
        base.scenario_block(task),
        base.fill(
            t["proxy"],
            Member_Name=profile["name"],
            Other_Members="、".join(n for n in names if n != profile["name"]),
            Preferences=profile["preferences"],
        ),
        base.prompts()["TeamFusion_Proxy_Guidelines"],  # quoted from the paper: not a setting
        base.language_requirement(language),
    )


def protocol(*, task: base.TaskSpec, params: Mapping[str, Any]) -> base.Protocol:
    # a run created before the prompts were settings has none stored: today's texts
    t = {**default_prompts(), **(params.get("prompts") or {})}
    profiles = params["profiles"]
    if len(profiles) < 2:
        raise ValueError("TeamFusion needs at least two member profiles")
    names = [prof["name"] for prof in profiles]
    if len(set(names)) != len(names) or SYNTHESIZER in names:
        raise ValueError("TeamFusion member names must be distinct and not 'Synthesizer'")
    language = params["language"]
    systems = {prof["name"]: proxy_system(task, prof, names, language, t) for prof in profiles}
    proxy_params = base.sampling(params["proxy_temperature"], params.get("top_p"))
    synth_system = base.join(
        t["team_description"],
        base.scenario_block(task),
        t["synthesizer"],
        base.language_requirement(language),
    )
    dialogue = base.Dialogue()
    answers: list[str] = []
    for step in task.steps:
        # Every agent starts each step afresh; the earlier answers carry the context.
        proxies = [base.Agent(n, systems[n], proxy_params) for n in names]
        synthesizer = base.Agent(
            SYNTHESIZER, synth_system, base.sampling(params["synthesizer_temperature"], params.get("top_p"))
        )
        task_text = base.single_task_step(answers, step)
        transcript: list[str] = []
        seen = dict.fromkeys(names, 0)  # how much of the transcript each proxy has been shown
        synth_seen = 0
        draft = ""
        for iteration in range(1, int(params["iterations"]) + 1):
            if iteration == 1:
                instruction = base.fill(t["discuss"], Step_Number=step.number)
            else:
                instruction = base.fill(t["refine"], Step_Number=step.number, Draft=draft)
            for _ in range(int(params["turns"])):
                for proxy in proxies:
                    new = transcript[seen[proxy.name] :]
                    reply = yield from dialogue.ask(
                        proxy,
                        step=step.number,
                        phase=phase("discussion", iteration),
                        content=base.join(
                            task_text if not proxy.messages[1:] else "",
                            base.join(t["discussion_header"], "\n\n".join(new)) if new else "",
                            instruction,
                        ),
                    )
                    transcript.append(base.says(proxy.name, reply))
                    seen[proxy.name] = len(transcript)
            new = transcript[synth_seen:]
            draft = yield from dialogue.ask(
                synthesizer,
                step=step.number,
                phase=phase("synthesis", iteration),
                content=base.join(
                    task_text if iteration == 1 else "",
                    base.join(t["discussion_header"], "\n\n".join(new)),
                    base.fill(t["synthesize"], Step_Number=step.number),
                ),
            )
            synth_seen = len(transcript)
            for name in names:
                # A separate conversation: rating must not change what the proxy says next.
                yield from dialogue.ask(
                    base.Agent(name, systems[name], proxy_params),
                    step=step.number,
                    phase=phase(RATING_PHASE, iteration),
                    content=base.fill(t["rate"], Step_Number=step.number, Draft=draft),
                )
        answers.append(draft)
    return answers

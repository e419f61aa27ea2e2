"""Multi-Agent Debate (Liang et al., 2024) with the role set of ``mad_roles.json``, as
the method's published code runs a debate: Debater A (the affirmative side) answers
the topic; Debater B (the negative side) is told to disagree with A's answer; the
Moderator judges at the end of each round, in JSON; a non-empty ``debate_answer``
ends the debate, whatever the stated preference (the method's ``interactive.py``:
``if self.mod_ans["debate_answer"] != ''``); otherwise each debater answers the
other's latest argument in a new round. After the last round without a preference a Judge (with the
moderator's instructions) lists the candidates and gives the final answer.
One debate per CGPST step; the topic is the scenario, the answers of the earlier
steps (in the release's wording) and the step. The prompts and the system prompts are
the current ``code/utils/config4all.json`` of ``Skytliang/Multi-Agents-Debate``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from generation.strategies import base

ROLES_FILE = "mad_roles.json"
MODERATOR, DEBATER_A, DEBATER_B, JUDGE = "Moderator", "Debater A", "Debater B", "Judge"
# what the prompts call the debaters, and the key the judge answers under: a reply kept whole (no
# debate_answer) carries them to raters unless the blind-text check knows them (hostile pass 13)
SIDES = ("Affirmative side", "Negative side", "Debater")
ANSWER_KEY = "debate_answer"
ROUND_NAMES = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth")
DEFAULTS: dict[str, Any] = {
    "language": "zh",
    "temperature": 0.6,  # the study's baseline temperature (the method's code uses 0)
    "temperatures": {},
    "top_p": 0.9,
    "rounds": 3,  # the method's max_round
}

SOURCES: dict[str, str] = dict(base.DISCUSSION_SOURCES)
_JSON = re.compile(r"\{.*\}", re.S)


def verdict(reply: str) -> dict[str, Any]:
    """The JSON object in a moderator's or judge's reply ({} when there is none; the
    method's code would stop with an error there)."""
    found = _JSON.search(reply)
    if not found:
        return {}
    try:
        value = json.loads(found[0])
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value  # kept as given
    if isinstance(value, list):
        return "\n".join(_text(v) for v in value)
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False)


def debate_answer(data: Mapping[str, Any]) -> str:
    return _text(data.get(ANSWER_KEY))


def ends_debate(data: Mapping[str, Any]) -> bool:
    """As the method's code: a non-empty ``debate_answer`` ends the debate, whatever
    "Whether there is a preference" says (a moderator answering "No" with an answer
    still ends it). Whitespace-only counts as empty here (ours: it is no answer)."""
    return bool(debate_answer(data).strip())


def protocol(*, task: base.TaskSpec, params: Mapping[str, Any]) -> base.Protocol:
    p = base.prompts()
    roles = {r["Agent_name"]: r for r in base.role_set(ROLES_FILE)}
    temperatures = base.role_temperatures(params, [MODERATOR, DEBATER_A, DEBATER_B, JUDGE])
    language_line = base.language_requirement(params["language"])
    rounds = int(params["rounds"])
    if rounds > len(ROUND_NAMES):
        raise ValueError(f"rounds must be at most {len(ROUND_NAMES)}")
    dialogue = base.Dialogue()
    answers: list[str] = []
    for step in task.steps:
        topic = base.join(base.scenario_block(task), base.single_task_step(answers, step), language_line)

        def agent(name: str, role: str, topic: str = topic) -> base.Agent:
            if role == MODERATOR:  # config4all.json's moderator_meta_prompt: the topic in quotes
                system = base.fill(p["MAD_Moderator_System"], Debate_Topic=topic)
            else:  # player_meta_prompt: the role prompt (mad_roles.json, the same words) + the topic
                system = roles[role]["Role_Prompt"] + p["MAD_Topic_Line"] + topic
            return base.Agent(name, system, base.sampling(temperatures[name], params.get("top_p")))

        a, b, moderator = (
            agent(DEBATER_A, DEBATER_A),
            agent(DEBATER_B, DEBATER_B),
            agent(MODERATOR, MODERATOR),
        )
        n = step.number
        aff = yield from dialogue.ask(a, step=n, phase="round 1", content=topic)
        neg = yield from dialogue.ask(
            b, step=n, phase="round 1", content=base.fill(p["MAD_Negative"], Aff_Ans=aff)
        )
        first_aff, first_neg = aff, neg
        judged: dict[str, Any] = {}
        for number in range(1, rounds + 1):
            if number > 1:
                aff = yield from dialogue.ask(
                    a, step=n, phase=f"round {number}", content=base.fill(p["MAD_Debate"], Oppo_Ans=neg)
                )
                neg = yield from dialogue.ask(
                    b, step=n, phase=f"round {number}", content=base.fill(p["MAD_Debate"], Oppo_Ans=aff)
                )
            reply = yield from dialogue.ask(
                moderator,
                step=n,
                phase=f"judgement {number}",
                content=base.fill(
                    p["MAD_Moderator"], Round=ROUND_NAMES[number - 1], Aff_Ans=aff, Neg_Ans=neg
                ),
            )
            judged = verdict(reply)
            if ends_debate(judged):
                break
        else:
            # No preference after the last round: the final judgement, on the debaters'
            # first answers (the method's code reads memory_lst[2] of each side).
            judge = agent(JUDGE, MODERATOR)
            yield from dialogue.ask(
                judge,
                step=n,
                phase="final judgement",
                content=base.fill(p["MAD_Judge_Candidates"], Aff_Ans=first_aff, Neg_Ans=first_neg),
            )
            reply = yield from dialogue.ask(
                judge,
                step=n,
                phase="final judgement",
                content=base.fill(p["MAD_Judge_Final"], Debate_Topic=topic),
            )
            judged = verdict(reply)
        # A verdict without an answer (unparseable JSON, an empty field) keeps the whole
        # reply (ours: the method's code would keep an empty answer).
        answers.append(debate_answer(judged) if ends_debate(judged) else reply)
    return answers

"""The interface every strategy implements, and the pieces they share.

A strategy's ``protocol(task=, params=)`` is a generator: it yields the provider
calls in their fixed order (:class:`Call`, numbered by ``seq``) and receives each
call's reply through ``send()``, so later prompts can quote earlier replies. When
every call has its reply, the generator returns the six step answers (one text for a
single-text task, which only the single model answers).

Because the protocol is deterministic, a run's state never needs saving: feeding
the persisted replies back in rebuilds it exactly, and the first call without a
reply is where a resumed run continues (:func:`protocol_next`).

The strategy modules import this module whole (``from generation.strategies import
base``) and name its pieces qualified (``base.fill``, ``base.Agent``), so the shared
toolkit is listed in one place, here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
LANGUAGE_NAMES = {"zh": "Chinese", "zh-hans": "Chinese", "en": "English"}


@dataclass(frozen=True)
class StepSpec:
    number: int
    name: str
    description: str
    output: str


@dataclass(frozen=True)
class TaskSpec:
    """What every strategy works on: the scenario and the six CGPST steps, or (``kind``
    "text") one prompt to answer with one text, and no steps."""

    scenario: str
    steps: tuple[StepSpec, ...]
    kind: str = "cgpst"


@dataclass(frozen=True)
class Call:
    """One provider call of a protocol."""

    seq: int
    step: int  # 0 = warm-up
    phase: str
    role: str
    messages: list[dict[str, str]]
    params: dict[str, Any]


Protocol = Generator[Call, str, list[str]]


class ProtocolError(Exception):
    """The persisted turns do not fit the protocol (it changed since the run started)."""


@cache
def prompts() -> dict[str, str]:
    """The study's prompt templates plus the supplementary ones the protocols need."""
    data = json.loads((DATA_DIR / "prompts.json").read_text(encoding="utf-8"))
    extra = json.loads((DATA_DIR / "supplementary_prompts.json").read_text(encoding="utf-8"))
    return {**data, **{k: v for k, v in extra.items() if not k.startswith("_")}}


@cache
def role_set(filename: str) -> tuple[dict[str, str], ...]:
    """A role file: [{Agent_name, Role_Speciality, Role_Prompt}, ...]."""
    return tuple(json.loads((DATA_DIR / filename).read_text(encoding="utf-8")))


@cache
def cgpst_steps() -> tuple[StepSpec, ...]:
    rows = json.loads((DATA_DIR / "CGPST.json").read_text(encoding="utf-8"))
    return tuple(
        StepSpec(int(r["Step_Number"]), r["Step_Name"], r["Step_Description"], r["Step_Output"]) for r in rows
    )


TEXT_TASK = "text"


def task_for(scenario_text: str, kind: str = "cgpst") -> TaskSpec:
    if kind == TEXT_TASK:
        return TaskSpec(scenario=scenario_text, steps=(), kind=TEXT_TASK)
    return TaskSpec(scenario=scenario_text, steps=cgpst_steps())


# Where the discussion methods' shared settings come from (LLM Discussion and Multi-Agent Debate:
# per-member temperatures are ours, top_p the paper's, the round count each method's own).
DISCUSSION_SOURCES: dict[str, str] = {
    "language": "study",
    "temperature": "ours",
    "temperatures": "ours",
    "top_p": "paper",
    "rounds": "method",
}

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def fill(template: str, **values: object) -> str:
    """Replace ``{Name}`` placeholders in one pass. Unlike ``str.format`` it leaves
    other braces alone (the study's Emphasis_Team contains a stray ``}``) and never
    re-reads inserted text, so model output quoting ``{Step_Number}`` stays as is."""
    return _PLACEHOLDER.sub(lambda m: str(values[m[1]]) if m[1] in values else m[0], template)


def localize(text: str, language: str) -> str:
    """The study's prompts ask for answers "in Chinese"; the language is a setting."""
    name = LANGUAGE_NAMES.get(language.lower(), language)
    return text.replace("in Chinese", f"in {name}")


def join(*parts: str) -> str:
    """Prompt components, in order, separated by a blank line; empty ones are left out."""
    return "\n\n".join(p for p in parts if p)


def says(role: str, text: str) -> str:
    """A transcript line as the reference writes it."""
    return f"{role} says: {text}"


def step_prompt(step: StepSpec) -> str:
    return fill(
        prompts()["Task_Step"],
        Step_Number=step.number,
        Step_Name=step.name,
        Step_Description=step.description,
        Step_Output=step.output,
    )


def scenario_block(task: TaskSpec) -> str:
    return fill(prompts()["Future_Scenario"], Future_Scenario=task.scenario)


def log_answer(step_number: int, answer: str) -> str:
    """A step's answer as the release keeps it in ``log_his``: the text after the first
    full-width colon of "Co-Ordinator says: <answer>" (the release's ``index('：')``;
    without one the release would stop with an error, so the whole answer is kept)."""
    plain = answer[answer.index("：") + 1 :].strip() if "：" in answer else answer.strip()
    return fill(prompts()["Release_Step_Answer"], Step_Number=step_number) + plain


def earlier_answers(answers: list[str]) -> str:
    """The answers of the earlier steps in the release's wording (TeamLLM's ``log_his``),
    for the protocols whose source method has a single task; empty before step 2."""
    if not answers:
        return ""
    entries = [log_answer(n, a) for n, a in enumerate(answers, start=1)]
    return "\n\n".join([prompts()["Release_History_Header"], *entries])


def single_task_step(answers: list[str], step: StepSpec) -> str:
    """A CGPST step as the task of a method that has a single task (LLM Discussion, MAD,
    TeamFusion): the earlier steps' answers in the release's wording, then the step."""
    return join(earlier_answers(answers), step_prompt(step))


def language_requirement(language: str) -> str:
    """The instruction to answer in the run's language."""
    return localize(prompts()["Language_Requirement"], language)


def sampling(temperature: float, top_p: float | None) -> dict[str, float]:
    """The request's sampling parameters. ``top_p`` None sends none, as the release's
    experiment code does (the paper states 0.9)."""
    if top_p is None:
        return {"temperature": float(temperature)}
    return {"temperature": float(temperature), "top_p": float(top_p)}


@dataclass
class Agent:
    """One LLM agent with its own message list (system prompt first)."""

    name: str
    system: str
    params: dict[str, Any]
    messages: list[dict[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.messages = [{"role": "system", "content": self.system}]


class Dialogue:
    """Numbers the calls of one protocol and keeps each agent's message list."""

    def __init__(self) -> None:
        self.seq = 0

    def ask(self, agent: Agent, *, step: int, phase: str, content: str) -> Generator[Call, str, str]:
        messages = [*agent.messages, {"role": "user", "content": content}]
        reply = yield Call(
            seq=self.seq,
            step=step,
            phase=phase,
            role=agent.name,
            messages=messages,
            params=dict(agent.params),
        )
        self.seq += 1
        agent.messages = [*messages, {"role": "assistant", "content": reply}]
        return reply

    def ask_each(
        self,
        agents: Sequence[Agent],
        said: list[str],
        *,
        step: int,
        phase: str,
        content: Callable[[Agent], str],
    ) -> Generator[Call, str, str]:
        """Each agent in turn is asked ``content(agent)``, built when its turn comes (so it
        reads what the agents before it said), and its reply is added to ``said`` as
        ``says(name, reply)``. Returns the last reply ("" for no agents)."""
        reply = ""
        for agent in agents:
            reply = yield from self.ask(agent, step=step, phase=phase, content=content(agent))
            said.append(says(agent.name, reply))
        return reply


# --- driving a protocol -----------------------------------------------------------


@dataclass(frozen=True)
class Done:
    answers: list[str]


@dataclass(frozen=True)
class Finished:
    """A replayed protocol returned: ``value`` is its result (any protocol's own type)."""

    value: Any


def protocol_position(
    protocol: Generator[Call, str, Any],
    replies: Mapping[int, str],
    known: Mapping[int, tuple] | None = None,
) -> Call | Finished:
    """Replay ``replies`` (seq -> reply) into a fresh protocol and return the first
    call that has none, or :class:`Finished` with what the protocol returned.

    ``known`` (seq -> (step, phase, role) of stored calls) is checked against the
    replayed calls, so a protocol that changed under a running job is caught instead
    of mixing two protocols in one result."""
    try:
        call = next(protocol)
        while True:
            if call.seq not in replies:
                return call
            if (
                known is not None
                and call.seq in known
                and known[call.seq] != (call.step, call.phase, call.role)
            ):
                raise ProtocolError(
                    f"turn {call.seq} was {known[call.seq]} but the protocol now asks for "
                    f"{(call.step, call.phase, call.role)}"
                )
            call = protocol.send(replies[call.seq])
    except StopIteration as stop:
        return Finished(stop.value)


def protocol_next(
    protocol: Protocol, replies: Mapping[int, str], known: Mapping[int, tuple[int, str, str]] | None = None
) -> Call | Done:
    """A strategy's position: the first call without a reply, or :class:`Done` with the answers."""
    position = protocol_position(protocol, replies, known)
    return Done(list(position.value)) if isinstance(position, Finished) else position


def protocol_run(protocol: Protocol, reply: Callable[[Call], str]) -> tuple[list[Call], list[str]]:
    """Drive a protocol to the end with ``reply(call)``: every call, and the answers."""
    calls: list[Call] = []
    try:
        call = next(protocol)
        while True:
            calls.append(call)
            call = protocol.send(reply(call))
    except StopIteration as stop:
        return calls, list(stop.value)


def merge_params(defaults: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Condition parameters override strategy defaults; nested dicts merge key by key."""
    merged: dict[str, Any] = dict(defaults)
    for key, value in overrides.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def role_temperatures(params: Mapping[str, Any], roles: Iterable[str]) -> dict[str, float]:
    """Per-role temperatures: a per-role entry wins over a global ``temperature``."""
    per_role = params.get("temperatures") or {}
    default = params.get("temperature")
    result = {}
    for role in roles:
        value = per_role.get(role, default)
        if value is None:
            raise ValueError(f"no temperature for role {role!r}")
        result[role] = float(value)
    return result

"""The stub's synthetic text: replies built from the request, in the shape the step
being worked on asks for (eight numbered challenges, a problem statement, eight
solutions, five criteria, a valid scoring grid, an action plan; an introduction in
the warm-up; plain paragraphs for a single-text task's prompt), and the JSON the Multi-Agent Debate's moderator and judge and
TeamFusion's ratings ask for. Used by ``devtools.llm_stub``; needs no Django."""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Callable
from typing import Any

SYNTHETIC_NOTE = "Generated offline from the request; not written by a language model."

_STEP = re.compile(r"(?:\bfor Step|\bof Step|· Step) (\d)\b")
# The step's own header ("The information for Step 2 is as follows", "[Step_Name] Step-2: ..."):
# it names the step worked on even when earlier replies quoted after it name others.
_STEP_HEADER = re.compile(r"(?:\binformation for Step |\[Step_Name\] Step-)(\d)\b")
_ROLE_PATTERNS = [
    re.compile(r"Your role in the team is ([^,\n]+),"),
    re.compile(r"You are the proxy of the team member ([^.\n]+)\."),
    re.compile(r"You are (Member \d)\b"),
    re.compile(r"You are the (synthesizer)\b"),
    re.compile(r"You are an? ([A-Z][^,.\n]*?) whose specialty is"),  # LLM Discussion
    re.compile(r"You are a (debater|moderator)\b"),  # Multi-Agent Debate
]
# The JSON the Multi-Agent Debate's moderator and judge, and TeamFusion's ratings, ask for.
_MODERATOR = re.compile(r"Now the (\w+) round of debate")
_WANTS_JSON = "output your answer in json format"
_WANTS_RATING = '"representation"'

_FENCED = re.compile(r"```\s*(.*?)```", re.S)
_WORD = re.compile(r"[A-Za-z][A-Za-z-]{5,}")
_COMMON = {"scenario", "future", "people", "should", "through", "because", "between", "however", "within"}


def _text(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):  # content parts
        return " ".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


def detect_step(messages: list[dict[str, Any]]) -> int:
    """The step the request works on (0 = warm-up), read from the prompts."""
    users = [_text(m) for m in messages if m.get("role") == "user"]
    for text in reversed(users):
        found = _STEP_HEADER.findall(text) or _STEP.findall(text)
        if found:
            return int(found[-1])
        if re.search(r"warm-up|introduce yourself", text, re.I):
            return 0
    return 0


def is_plain_prompt(messages: list[dict[str, Any]]) -> bool:
    """A request that names no CGPST step and asks for no warm-up: a single-text task's prompt."""
    users = [_text(m) for m in messages if m.get("role") == "user"]
    return bool(users) and not any(
        _STEP_HEADER.search(t) or _STEP.search(t) or re.search(r"warm-up|introduce yourself", t, re.I)
        for t in users
    )


def _plain(rng: random.Random, prompt: str) -> str:
    """A few paragraphs that take up the prompt's own words (a single-text task's answer)."""
    words = [w.lower() for w in _WORD.findall(prompt) if w.lower() not in _COMMON] or ["question"]
    openings = ("To answer this, start from", "A careful answer weighs", "The heart of the matter is")
    return "\n\n".join(
        f"{rng.choice(openings)} {rng.choice(words)} and {rng.choice(words)}: "
        f"{rng.randint(2, 9)} points follow from what the question asks about {rng.choice(words)}."
        for _ in range(3)
    )


def detect_role(messages: list[dict[str, Any]]) -> str:
    texts = [_text(m) for m in messages if m.get("role") in ("system", "user")]
    for text in reversed(texts):
        for pattern in _ROLE_PATTERNS:
            found = pattern.search(text)
            if found:
                name = found[1].strip()
                return name.title() if name in ("synthesizer", "debater", "moderator") else name
    return "Individual"


def scenario_keywords(messages: list[dict[str, Any]]) -> list[str]:
    system = " ".join(_text(m) for m in messages if m.get("role") == "system")
    fenced = _FENCED.search(system)
    words = _WORD.findall(fenced[1] if fenced else system)
    seen: list[str] = []
    for w in words:
        lw = w.lower()
        if lw not in _COMMON and lw not in seen:
            seen.append(lw)
    return seen or ["ocean", "community", "technology", "climate", "health", "education"]


def _numbered_lines(rng: random.Random, kw: list[str], line: Callable[[int, str, str], str]) -> str:
    """Eight numbered lines, each written from two keywords drawn in turn."""
    return "\n".join(line(i, rng.choice(kw), rng.choice(kw)) for i in range(1, 9))


def _challenges(rng: random.Random, kw: list[str]) -> str:
    return _numbered_lines(
        rng,
        kw,
        lambda i, a, b: (
            f"{i}. The growth of {a} might put pressure on {b}, because the people who depend on {b} "
            f"could lose access to it as the scenario unfolds (synthetic challenge {i})."
        ),
    )


def _problem(rng: random.Random, kw: list[str]) -> str:
    a, b, c = rng.choice(kw), rng.choice(kw), rng.choice(kw)
    return (
        f"Challenge number: 3. Given that {a} is changing rapidly in the scenario, how might we reduce the "
        f"harm that {b} causes to local communities in order to protect {c} for the next generation, "
        f"in the coastal region of the scenario, by the year 2040, within the theme of the scenario? "
        f"(synthetic problem statement)"
    )


def _solutions(rng: random.Random, kw: list[str]) -> str:
    actors = ["The city council", "A coalition of schools", "Local fishers", "A research lab",
              "Youth volunteers", "The regional government", "A start-up", "Hospitals"]  # fmt: skip
    return _numbered_lines(
        rng,
        kw,
        lambda i, a, b: (
            f"{i}. {actors[i - 1]} will launch a {a} programme in the region from 2030, using {b} "
            f"monitoring to reduce the harm and protect the community, because it addresses the key "
            f"verb phrase directly (synthetic solution {i})."
        ),
    )


def _criteria(rng: random.Random, kw: list[str]) -> str:
    aspects = ["most effectively reduce the harm", "be the least expensive to run",
               "be accepted most widely by residents", "be the fastest to put in place",
               "protect the environment the most"]  # fmt: skip
    return "\n".join(
        f"{i}. Which solution will {aspect} to {rng.choice(kw)}?" for i, aspect in enumerate(aspects, start=1)
    )


def _grid(rng: random.Random) -> tuple[str, int]:
    n, k = 8, 5
    columns = []
    for _ in range(k):
        column = list(range(1, n + 1))
        rng.shuffle(column)
        columns.append(column)
    rows = [[columns[c][r] for c in range(k)] for r in range(n)]
    totals = [sum(r) for r in rows]
    best = max(range(n), key=lambda r: (totals[r], -r)) + 1
    header = "Solution ID | " + " | ".join(f"Criterion {c}" for c in range(1, k + 1)) + " | Total Score"
    body = "\n".join(
        f"{r + 1} | " + " | ".join(str(v) for v in rows[r]) + f" | {totals[r]}" for r in range(n)
    )
    return f"{header}\n{body}\nHighest-scoring solution ID: {best}, Solution: synthetic solution {best}", best


def _plan(rng: random.Random, kw: list[str]) -> str:
    best = rng.randint(1, 8)
    a, b = rng.choice(kw), rng.choice(kw)
    return (
        f"Best Solution ID: {best}\n"
        f"Best Solution Content: synthetic solution {best}, a {a} programme with {b} monitoring.\n"
        "Action Plan: Phase 1 (first six months): form a steering group of residents, experts and the "
        f"city council, and measure the current state of {a}. Phase 2 (year one): pilot the programme in "
        f"two districts, train volunteers and publish the {b} data openly. Phase 3 (years two to three): "
        "scale up, choosing sites with the agreed criteria, secure funding, and review the impact on "
        "the community every quarter. (synthetic action plan)"
    )


def synthetic_reply(messages: list[dict[str, Any]], seed: int = 0) -> tuple[str, str]:
    """(answer, reasoning) for a request; the same request gives the same text."""
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    rng = random.Random(f"{seed}:{digest}")
    step, role = detect_step(messages), detect_role(messages)
    kw = scenario_keywords(messages)
    where = "Warm-up" if step == 0 else f"Step {step}"
    # No role, strategy or model in what may reach a response: raters read it blind (the
    # review gate holds a text that names them). The warm-up, never part of a response,
    # still introduces the role.
    header = f"[Synthetic reply · {where}] {SYNTHETIC_NOTE}"
    if step == 0:
        body = (
            f"Hello everyone, I am {role}. I look forward to working with you on this scenario about "
            f"{rng.choice(kw)} and {rng.choice(kw)}; I will contribute from my role and listen to yours."
        )
    elif step == 1:
        body = _challenges(rng, kw)
    elif step == 2:
        body = _problem(rng, kw)
    elif step == 3:
        body = _solutions(rng, kw)
    elif step == 4:
        body = _criteria(rng, kw)
    elif step == 5:
        body, _ = _grid(rng)
    else:
        body = _plan(rng, kw)
    reasoning = (
        f"(synthetic reasoning) {role} considers {where.lower()} with {len(messages)} messages in view."
    )
    last = next((_text(m) for m in reversed(messages) if m.get("role") == "user"), "")
    if _WANTS_RATING in last:
        rating = {
            "representation": rng.randint(2, 5),
            "consensus": rng.randint(2, 5),
            "reason": f"{SYNTHETIC_NOTE} ({role}, {where})",
        }
        return json.dumps(rating, ensure_ascii=False), reasoning
    if _WANTS_JSON in last:
        return json.dumps(_verdict(last, f"{header}\n{body}"), ensure_ascii=False), reasoning
    if is_plain_prompt(messages):
        return f"[Synthetic reply] {SYNTHETIC_NOTE}\n{_plain(rng, last)}", reasoning
    return f"{header}\n{body}", reasoning


def _verdict(prompt: str, answer: str) -> dict[str, str]:
    """A debate moderator's JSON: no preference after the first round, a preference for
    the affirmative side after any later one; a judge's final JSON always answers."""
    reason = f"{SYNTHETIC_NOTE} (synthetic verdict)"
    moderator = _MODERATOR.search(prompt)
    if moderator is None:
        return {"Reason": reason, "debate_answer": answer}
    if moderator[1] == "first":
        return {
            "Whether there is a preference": "No",
            "Supported Side": "",
            "Reason": reason,
            "debate_answer": "",
        }
    return {
        "Whether there is a preference": "Yes",
        "Supported Side": "Affirmative",
        "Reason": reason,
        "debate_answer": answer,
    }

"""The stub as an LLM judge: a deterministic, imperfect scorer (no Django, no rubric import).

A request is a judge request when its system message carries the judge prompt's marker.
The answer follows the JSON schema of the request (``response_format`` or the schema
the prompt prints between BEGIN SCHEMA and END SCHEMA): every required key, values in
range, derived from the response text in the prompt (longer items and steps score
higher, categories by a hash of the item), so it correlates with, but differs from,
human scores.

``judge_fault`` makes the first ``judge_fault_attempts`` attempts of a conversation
(attempt = how many user messages it has) answer badly: prose, truncated JSON, a
category outside the list, an out-of-range score, an extra or a missing entry.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

JUDGE_MARKER = ", judge prompt "  # in the first line of every judge prompt version
JUDGE_FAULTS = ("prose", "truncated", "category", "range", "extra", "missing")
_SCHEMA = re.compile(r"BEGIN SCHEMA\n(?P<schema>.*?)\nEND SCHEMA", re.S)
_ITEM = re.compile(r"^\[items\.(?P<step>\d)\.(?P<pos>\d+)\] (?P<text>.*)$", re.M)
_STEP = re.compile(r"^## Step (?P<n>\d)\n(?P<body>.*?)(?=^## Step \d|\Z)", re.M | re.S)
# the whole response (a single text, or a pair's A and B): what a rubric without steps of it reads
_RESPONSE = re.compile(r"^# The response to score\n(?P<body>.*?)(?=^# Required answer|\Z)", re.M | re.S)


def _content(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content)


def is_judge_request(messages: list[dict[str, Any]]) -> bool:
    return any(m.get("role") == "system" and JUDGE_MARKER in _content(m) for m in messages)


def _schema(payload: dict[str, Any], prompt: str) -> dict[str, Any]:
    fmt = payload.get("response_format") or {}
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        return fmt["json_schema"]["schema"]
    found = _SCHEMA.search(prompt)
    return json.loads(found["schema"]) if found else {"properties": {}}


def _hash(*parts: str) -> int:
    return int(hashlib.sha256("|".join(parts).encode()).hexdigest()[:8], 16)


def _scale(lo: int, hi: int, fraction: float, wobble: int) -> int:
    value = lo + round((hi - lo) * min(1.0, fraction)) + (wobble % 3 - 1)
    return max(lo, min(hi, value))


def judge_answer(payload: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A valid answer for the schema, derived from the response text."""
    prompt = next((_content(m) for m in messages if m.get("role") == "user"), "")
    schema = _schema(payload, prompt)
    items = {f"items.{m['step']}.{m['pos']}": m["text"] for m in _ITEM.finditer(prompt)}
    steps = {int(m["n"]): m["body"].strip() for m in _STEP.finditer(prompt)}
    answer: dict[str, Any] = {}
    for path in schema.get("required", list(schema.get("properties", {}))):
        spec = schema["properties"][path]
        parts = path.split(".")
        text = items.get(".".join(parts[:3]), "")
        if parts[-1] == "classification":
            choices = spec["enum"]
            categories = [c for c in choices if not c.startswith("invalid:")]
            invalid = [c for c in choices if c.startswith("invalid:") and c != "invalid:blank"]
            weak = len(text) < 25 or _hash(text) % 7 == 0
            answer[path] = (invalid or choices)[0] if weak else categories[_hash(text) % len(categories)]
        elif parts[0] == "items" and parts[-1] in ("elaboration", "originality"):
            if str(answer.get(".".join(parts[:3]) + ".classification", "")).startswith("invalid:"):
                answer[path] = None
            else:
                lo, hi = spec.get("minimum", 0), spec.get("maximum", 2)
                answer[path] = _scale(lo, hi, len(text) / 160, _hash(path, text))
        elif parts[0] == "items":
            lo, hi = spec.get("minimum", 0), spec.get("maximum", 1)
            answer[path] = _scale(lo, hi, len(text) / 80, _hash(path, text))
        elif parts[0] == "comments":  # a reason the rubric asks for
            answer[path] = f"Judged from the texts' length and content ({_hash(path, prompt) % 97})."
        elif parts[0] == "texts":
            words = steps.get(2, "").split()
            quarter = max(1, len(words) // 4)
            index = (
                ["condition_phrase", "stem", "kvp", "purpose"].index(parts[1])
                if parts[1] in ("condition_phrase", "stem", "kvp", "purpose")
                else 0
            )
            answer[path] = " ".join(words[index * quarter : (index + 1) * quarter]) or "(none)"
        else:
            step = int(parts[1][1]) if len(parts) > 1 and parts[1][:1] == "s" else 0
            whole = _RESPONSE.search(prompt)
            body = steps.get(step) or (whole["body"].strip() if whole else "")
            lo, hi = spec.get("minimum", 0), spec.get("maximum", 1)
            answer[path] = _scale(lo, hi, len(body) / 900, _hash(path, body))
    return answer


def judge_reply(
    payload: dict[str, Any], messages: list[dict[str, Any]], fault: str, fault_attempts: int
) -> str:
    """The judge's text: the answer as JSON, or the configured bad answer."""
    answer = judge_answer(payload, messages)
    attempt = sum(1 for m in messages if m.get("role") == "user")
    if not fault or attempt > fault_attempts or not answer:
        return json.dumps(answer, ensure_ascii=False)
    keys = list(answer)
    if fault == "prose":
        return "This response is quite creative overall; I would give it good marks on most steps."
    if fault == "truncated":
        return json.dumps(answer, ensure_ascii=False)[: len(json.dumps(answer)) // 2]
    if fault == "category":
        key = next(k for k in keys if k.endswith(".classification"))
        answer[key] = "Underwater Basket Weaving"
    elif fault == "range":
        key = next(k for k in keys if k.startswith("dims."))
        answer[key] = 99
    elif fault == "extra":
        answer["items.1.9.classification"] = keys and answer[keys[0]]
    elif fault == "missing":
        answer.pop(next(k for k in keys if k.startswith("dims.")))
    return json.dumps(answer, ensure_ascii=False)

"""The text checks a rubric declares (``Rubric.checks``), run on a response's texts (pure: no ORM).

A check scores nothing: what it finds is a hint beside the sheet, as CGPST's Step-5 grid errors are.
Words: a run of letters and digits (an apostrophe or hyphen inside one keeps it one word), and each
Chinese character one word, as Chinese word counts go. Characters: every character but white space.
Phrases are literal and matched in any case (no patterns: a rubric's file never runs a regex on a
response)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

from studies.rubric.schema import Label, TextCheck

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD = re.compile(rf"[{_HAN}]|(?:(?![{_HAN}])[^\W_])+(?:['’-](?:(?![{_HAN}])[^\W_])+)*")
_SPACE = re.compile(r"\s+")

TOO_SHORT, TOO_LONG, FOUND, MISSING = "short", "long", "found", "missing"


@dataclass(frozen=True)
class CheckFinding:
    """What one check found in one text: ``what`` is TOO_SHORT or TOO_LONG (``counted`` against
    ``bound`` in ``unit``), FOUND (``phrases`` it must not have) or MISSING (``phrases`` it lacks)."""

    key: str
    text: int  # the text's number: an answer's step, a pair's 1 (A) or 2 (B)
    message: Label
    what: str
    unit: str = ""
    counted: int = 0
    bound: int = 0
    phrases: tuple[str, ...] = ()


def text_length(text: str, *, unit: str) -> int:
    """The text's words or characters, as the module's docstring counts them."""
    if unit == "words":
        return len(_WORD.findall(text))
    return len(_SPACE.sub("", text))


def _phrases_in(text: str, phrases: Sequence[str]) -> tuple[str, ...]:
    folded = text.casefold()
    return tuple(p for p in phrases if p.casefold() in folded)


def _check_text(check: TextCheck, number: int, text: str) -> list[CheckFinding]:
    found = partial(CheckFinding, key=check.key, text=number, message=check.message)
    if check.kind == "length":
        counted = text_length(text, unit=check.unit)
        if check.min is not None and counted < check.min:
            return [found(what=TOO_SHORT, unit=check.unit, counted=counted, bound=check.min)]
        if check.max is not None and counted > check.max:
            return [found(what=TOO_LONG, unit=check.unit, counted=counted, bound=check.max)]
        return []
    findings = []
    if present := _phrases_in(text, check.absent):
        findings.append(found(what=FOUND, phrases=present))
    if lacking := tuple(p for p in check.present if p not in _phrases_in(text, check.present)):
        findings.append(found(what=MISSING, phrases=lacking))
    return findings


def text_checks_run(checks: Sequence[TextCheck], texts: Sequence[str]) -> list[CheckFinding]:
    """Every finding of ``checks`` on ``texts`` (the response's texts, the first numbered 1), in the
    order of the checks and then of the texts. A check naming a text the response lacks finds nothing."""
    findings: list[CheckFinding] = []
    for check in checks:
        numbers = [check.text] if check.text else range(1, len(texts) + 1)
        for number in numbers:
            if 1 <= number <= len(texts):
                findings += _check_text(check, number, texts[number - 1])
    return findings

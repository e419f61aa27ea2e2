"""Hostile passes 16 and 17's blind-text findings, with the study's real catalogue of roles (the
strategies' names and their Chinese forms): a teammate spoken of in lower case ("Our futurist
suggests", "The environmentalist objected."), a sign-off "— the futurist", a self-naming at a
clause's start with a comma ("As the plant, the ideas ...", "As member 1,"), at the very end of a
text ("作为未来学家。"), a member's number in Chinese ("作为一号成员，"), a role's word with a hyphen or
an "and" ("start-up founder", "monitor and evaluator") and a model's product word ("I am Opus").
Prose with the same words stays prose."""

from __future__ import annotations

import pytest

from generation.strategies import ROLE_NAMES_ZH, strategy_role_names
from studies.blind_text import MODEL, ROLE, BlindTerm, blind_spans

ROLES = strategy_role_names()
CATALOGUE = [
    *(BlindTerm(name, ROLE) for name in ROLES),
    *(BlindTerm(zh, ROLE) for name in ROLES for zh in ROLE_NAMES_ZH.get(name, ())),
    BlindTerm("claude-opus-4-1", MODEL),
    BlindTerm("deepseek-r1", MODEL),
]


def names(text: str) -> list[str]:
    return [text[s.start : s.end] for s in blind_spans(text, CATALOGUE)]


@pytest.mark.parametrize(
    "text, found",
    [
        ("The futurist in our team suggests a pilot.", ["futurist"]),
        ("Our futurist suggests floating farms.", ["futurist"]),
        ("Our plant rightly noted the cost.", ["plant"]),
        ("The environmentalist objected.", ["environmentalist"]),
        ("The moderator summarised it.", ["moderator"]),
        ("Team member three suggested a pilot.", ["member three"]),
        ("We need dikes.\n— the futurist", ["futurist"]),
        ("Plans for 2040. As the futurist,", ["futurist"]),
        ("规划2040年。作为未来学家。", ["未来学家"]),
        ("As member 1, the plan is to build dikes.", ["member 1"]),
        ("1. As the implementer, the schedule is tight.", ["implementer"]),
        ("作为一号成员，规划如下。", ["一号成员"]),
        ("As the plant, the ideas are floating farms.", ["plant"]),
        ("As the start-up founder, I would pitch.", ["start-up founder"]),
        ("As the monitor and evaluator, I check.", ["monitor and evaluator"]),
        ("As the Monitor & Evaluator, I check.", ["Monitor & Evaluator"]),
        ("As the affirmative side, I argue for dikes.", ["affirmative side"]),
        ("I am Opus, and I propose dikes.", ["Opus"]),
        ("I am R1. Here is my plan.", ["R1"]),
        ("我是R1，以下是方案。", ["R1"]),
    ],
)
def test_passes_16_and_17_phrasings_are_found(text, found):
    assert names(text) == found


@pytest.mark.parametrize(
    "text",
    [
        "Such as the plant, the dam and the bridge.",
        "As a plant, the facility emits steam.",
        "The environmentalist objected to the dam in 2031.",
        "Our environmentalist groups argued for parks.",
        "The futurist in the novel suggests a floating city.",
        "This is R1 road, the ring around the city.",
        "It is a magnum opus of urban planning.",
        "成员一致同意这一方案。",
        "We monitor and evaluate the dikes every year.",
        "A start-up culture took hold in 2040.",
    ],
)
def test_prose_with_the_same_words_stays_prose(text):
    assert names(text) == []

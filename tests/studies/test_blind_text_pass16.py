"""Hostile pass 16's blind-text findings: a role in Markdown emphasis or quotes ("As the
**Futurist**,", "作为**未来学家**，", "As the "Futurist",") reached raters unflagged, as LLMs bold
their own role names; so did "I was asked to play the environmentalist" and "In character as the
futurist:". Prose with emphasis, quotes and the same verbs stays prose."""

from __future__ import annotations

import pytest

from core.text_forms import reader_form, words_unbroken
from studies.blind_text import ROLE, BlindTerm
from tests.studies.test_blind_text import TERMS, names

CATALOGUE = [*TERMS, BlindTerm("Futurist", ROLE), BlindTerm("未来学家", ROLE), BlindTerm("主持人", ROLE)]


@pytest.mark.parametrize(
    "text, found",
    [
        ("As the **Futurist**, I see these challenges.", ["Futurist"]),
        ("I am the **Moderator** and this is the summary.", ["Moderator"]),
        ("As an *Implementer*, I would start next term.", ["Implementer"]),
        ("My role as **Plant** is to propose ideas.", ["Plant"]),
        ("As the _Futurist_, I think", ["Futurist"]),
        ("As the ~~Futurist~~, I think", ["Futurist"]),
        ('As the "Futurist", I think', ["Futurist"]),
        ("As the 'Futurist', I think", ["Futurist"]),
        ("As the “Futurist”, I think", ["Futurist"]),
        ('As the "Environmentalist" of the team, we should act.', ["Environmentalist"]),
        ("As the `Futurist`, I think", ["Futurist"]),
        ("As *the* Futurist, I think", ["Futurist"]),
        ("作为**未来学家**，我认为应当规划2040年。", ["未来学家"]),
        ('作为"未来学家"，我认为应当规划。', ["未来学家"]),
        ("我是**主持人**，总结如下。", ["主持人"]),
        ("I was asked to play the environmentalist.", ["environmentalist"]),
        ("In character as the futurist: plan for 2040.", ["futurist"]),
        ("I am here to be the moderator.", ["moderator"]),
    ],
)
def test_emphasis_quotes_and_casting_are_read_through(text, found):
    assert names(text, CATALOGUE) == found


@pytest.mark.parametrize(
    "text",
    [
        "We **plant** trees along the *monitor* line; it's the raters' room.",
        'The "green" plan: we were told to be an environmentalist country.',
        "I was told to be an environmentalist country by 2040.",
        "The plant is here to be a landmark.",
    ],
)
def test_prose_with_emphasis_and_the_same_verbs_stays_prose(text):
    assert names(text, CATALOGUE) == []


def test_the_marks_around_a_word_are_dropped_where_an_apostrophe_stays():
    text = "As the **Futurist**, it's `done` for the raters' 'room'."
    seen, origins = words_unbroken(*reader_form(text))
    assert seen == "As the Futurist, it's done for the raters' room."
    assert "".join(text[i] for i in origins) == seen

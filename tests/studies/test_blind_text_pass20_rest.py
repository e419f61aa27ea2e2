"""Hostile pass 20's misses, found now: other paraphrases of teammates, a debate's side after a part
of a debate and before a judge's ruling, a maker in a fragment, a name of one word split by a space
or a line break, a sentence spaced out letter by letter; and the prose that stays prose beside them."""

from __future__ import annotations

import pytest

from core.text_forms import reader_form
from studies.blind_text import MODEL, ROLE, BlindTerm, blind_spans
from tests.studies.test_blind_text_pass19_rest import TERMS

CATALOGUE = [*TERMS, BlindTerm("Claude", MODEL), BlindTerm("Teamworker", ROLE), BlindTerm("Kimi", MODEL)]


def names(text: str) -> list[str]:
    return [text[s.start : s.end] for s in blind_spans(text, CATALOGUE)]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("The futurist and the implementer disagree.", ["futurist", "implementer"]),
        ("I'm the team's resident environmentalist.", ["environmentalist"]),
        ("The debaters agreed.", ["debaters"]),
        ("Opening Statement — Affirmative", ["Affirmative"]),
        ("## Rebuttal (Negative)", ["Negative"]),
        ("Having heard the affirmative side and the negative side, I rule for dikes.", ["affirmative"]),
        ("Trained by Goog1e.", ["Goog1e"]),
        ("Trained by Google, I suggest dikes.", ["Google"]),
        ("结合执行者的意见，我们认为应当建设。", ["执行者"]),
        ("我们采纳了监督评估者的想法。", ["监督评估者"]),
        ("As the Implemen ter, I propose a timetable.", ["Implemen ter"]),
        ("Clau\nde here.", ["Clau\nde"]),
        ("I a m C l a u d e", ["C l a u d e"]),
        ("I am ᏟᏞᎪUᎠᎬ.", ["ᏟᏞᎪUᎠᎬ"]),  # Cherokee letters that look Latin
        ("Members 1 and 2 agreed.", ["Members 1 and 2"]),
        ("Members 1, 2 and 3 agreed on dikes.", ["Members 1, 2 and 3"]),
    ],
)
def test_pass_20_misses_are_found(text, found):
    assert names(text) == found


@pytest.mark.parametrize(
    "text",
    [
        "The team worker said the shift was long.",  # two words of prose are not "Teamworker"
        "a team\nworker",
        "Kim is here.",  # "kimi" across words that are whole only with the next letters
        "Made by Google, the phone sells well.",
        "The government and the city disagree on dikes.",
        "The debaters of the council agreed.",
        "政府采纳了未来学家的想法。",  # an everyday word: futurists of the scenario
        "The negative side effects are small.",
        "the members 1 and 2 of the household",  # a member's number needs its capital
    ],
)
def test_their_prose_stays_prose(text):
    assert names(text) == []


def test_a_sentence_spaced_out_is_read_as_one_word_and_the_name_found_in_it():
    assert reader_form("I a m C l a u d e")[0] == "IamClaude"
    assert names("c l A u d e here") == ["c l A u d e"]  # a capital inside: found whole
    assert names("The ClaudeMonet exhibit") == ["Claude"]  # a model's name glued on: held, as before
    assert names("myclaudefile") == []  # inside a word in lower case: not a name

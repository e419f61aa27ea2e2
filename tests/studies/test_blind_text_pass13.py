"""Hostile pass 12's last blind-text finding: a role glued to an agent's word ("ModeratorBot:") or
followed by one ("Moderator Bot:") reached raters unchanged. A reader sees two words where a capital
starts the second; the check now reads them so. Prose with such words is left alone."""

from __future__ import annotations

import pytest

from core.text_forms import reader_form, words_apart
from studies.blind_names import glued_after
from studies.blind_text import BlindTerm, blind_spans
from tests.studies.test_blind_text import names


@pytest.mark.parametrize(
    "text, found",
    [
        ("ModeratorBot: I think we should vote.", ["Moderator"]),
        ("Moderator Bot: I think we should vote.", ["Moderator"]),
        ("Moderator Agent: I think we should vote.", ["Moderator"]),
        ("[ModeratorBot] I think we should vote.", ["Moderator"]),
        ("[Moderator Agent · step 2] I think we should vote.", ["Moderator"]),
        ("As the EnvironmentalistAgent, I say we stop.", ["Environmentalist"]),
        ("EnvironmentalistAI: we stop the dam.", ["Environmentalist"]),
        ("DebaterA: I disagree.", ["DebaterA"]),
        ("@ModeratorBot please sum up.", ["Moderator"]),
        ("The moderatorBot said we should vote.", ["moderator"]),
        ("Our PlantAgent argued that we float the farms.", ["Plant"]),
    ],
)
def test_glued_agent_names_are_found(text, found):
    assert names(text) == found


@pytest.mark.parametrize(
    "text",
    [
        "The city released the iPhone plan for LinkedIn.",
        "PlantBased diets are good; the PowerPlant is old.",
        "The plant manager said we should wait.",
        "McDonald's and YouTube are brands in the scenario.",
    ],
)
def test_prose_with_capitals_inside_words_is_left_alone(text):
    assert names(text) == []


def test_only_a_role_glued_to_an_agent_word_is_set_apart():
    text = "ModeratorBot, OpenAI, PowerPlant, DebaterA, iPhone"
    assert [text[i : i + 3] for i in glued_after(text, ["Moderator", "Plant", "Debater A"])] == ["Bot", "A, "]


def test_words_apart_keeps_where_each_character_came_from():
    seen, origins = reader_form("say ModeratorBot")
    apart, places = words_apart(seen, origins, glued_after(seen, ["Moderator"]))
    assert apart == "say Moderator Bot"
    assert [places[apart.index("Bot") + i] for i in range(3)] == [13, 14, 15]
    assert places[apart.index(" Bot")] == 13  # the space stands for the capital after it


def test_a_name_ending_in_zero_needs_its_zero():
    """Found by a test whose factory named a model "model-0": "Which model has..." was held, as
    zero has no Roman numeral and the empty one matched."""
    from studies.blind_text import MODEL, BlindTerm

    terms = [BlindTerm("model-0", MODEL), BlindTerm("Member 0", "role")]
    assert blind_spans("3. Which model has the highest potential? Each member says so.", terms) == []
    assert [s.term for s in blind_spans("I am model-0, or Model Zero.", terms)] == ["model-0", "model-0"]


def _strategy_terms():
    from generation.strategies import ROLE_NAMES_ZH, strategy_role_names
    from studies.blind_text import ROLE, BlindTerm

    names = strategy_role_names()
    return [BlindTerm(n, ROLE) for n in names] + [
        BlindTerm(zh, ROLE) for n in names for zh in ROLE_NAMES_ZH.get(n, ())
    ]


@pytest.mark.parametrize(
    "text, found",
    [
        ("As the Judge, I have weighed both answers and pick solution 1.", ["Judge"]),
        ("Judge: solution 1 wins.", ["Judge"]),
        ("Affirmative side: nanosponges are best.", ["Affirmative side"]),
        ("作为裁判，我认为方案1最好。", ["裁判"]),
        ("The second debater disagreed with the first debater.", ["debater"]),
        ('{"debate_answer": "solution 1"}', ["debate_answer"]),
    ],
)
def test_the_debates_own_names_are_found(text, found):
    """Hostile pass 13, finding 2: the debate's judge, its sides and its answer's key are names
    the strategy gives; they reached raters of condition E unchanged."""
    assert names(text, _strategy_terms()) == found


@pytest.mark.parametrize(
    "text",
    [
        "The judge of the city court ruled that the dam stays.",
        "A negative side effect of the dam is silt; the affirmative side of the ledger grows.",
        "Both sides of the debate on the dam agree the river floods.",
    ],
)
def test_prose_with_the_debates_words_is_left_alone(text):
    assert blind_spans(text, _strategy_terms()) == []


@pytest.mark.parametrize("term", ["Agent²", "Futurist ①", "成员①"])
def test_a_name_with_a_digit_int_refuses_is_read_not_a_crash(term):
    """Hostile pass 15 (F4): "²" and "①" are digits to str.isdigit() that int() refuses; a member
    so named failed every import and generation run of its study."""
    text = f"Speaking as {term}, I suggest we vote."
    assert [text[s.start : s.end] for s in blind_spans(text, [BlindTerm(term, "role")])] == [term]
    assert blind_spans("Nothing here names anyone.", [BlindTerm(term, "role")]) == []


@pytest.mark.parametrize(
    "text, found",
    [
        ("As a C-l-a-u-d-e model, I propose", ["C-l-a-u-d-e"]),
        ("I am a K i m i model", ["K i m i"]),
        ("Answer: a G-e-m-i-n-i view", ["G-e-m-i-n-i"]),
        ("I'm a P-l-a-n-t.", ["P-l-a-n-t"]),
        ("As a P l a n t, I suggest", ["P l a n t"]),
        ("written by a Q.w.e.n assistant", ["Q.w.e.n"]),
        ("I'm K-i-m-i", ["K-i-m-i"]),
        ("I'm Q-W-E-N", ["Q-W-E-N"]),
    ],
)
def test_a_spaced_name_after_a_one_letter_word_is_found(text, found):
    """Hostile pass 15 (F1): the "a", the "I" or the "m" of "I'm" was taken as the first of the
    letters standing apart ("aClaude"), so the name's word boundary failed."""
    terms = [BlindTerm("Claude", "model"), BlindTerm("Kimi", "model"), BlindTerm("Gemini", "model"),
             BlindTerm("Plant", "role"), BlindTerm("Qwen", "model")]  # fmt: skip
    assert names(text, terms) == found

"""The rest of hostile pass 22's blind-text findings: a role in any cell of a table, a heading with
an emoji before the role, a research ID with a letter for a digit, letters in squares and flags'
letters, a Braille blank inside a name, a name split by a dash or a slash; and the prose beside
them that stays prose."""

from __future__ import annotations

import pytest

from tests.studies.test_blind_text_pass22 import names


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("| Idea | Plant | Notes |\n|------|-------|-------|", ["Plant"]),
        ("| Step | Owner |\n|---|---|\n| 1 | Implementer |", ["Implementer"]),
        ("| 1 | **Implementer** | dikes |", ["Implementer"]),
        ("｜ 1 ｜ Futurist ｜", ["Futurist"]),
        ("## 🌱 Plant", ["Plant"]),
        ("### 💡 Implementer's view", ["Implementer"]),
        ("Response AO7_FS10 is mine.", ["AO7_FS10"]),
        ("Response A0l-FS10 is mine.", ["A0l-FS10"]),
        ("I am 🅲🅻🅰🆄🅳🅴.", ["🅲🅻🅰🆄🅳🅴"]),
        ("I am 🇨🇱🇦🇺🇩🇪.", ["🇨🇱🇦🇺🇩🇪"]),
        ("I am Cla\u2800ude.", ["Cla\u2800ude"]),
        ("As the Imple–menter, I propose dikes.", ["Imple–menter"]),
        ("As the Imple/menter, I propose dikes.", ["Imple/menter"]),
        ("I am Clau/de.", ["Clau/de"]),
    ],
)
def test_the_rest_of_pass_22_is_found(text, found):
    assert names(text) == found


@pytest.mark.parametrize(
    "text",
    [
        "| Site | Capacity (MW) |\n|---|---|\n| North | 40 |",  # no role in the cells
        "| Notes | the plant grows |",  # a cell of prose
        "## 🌱 Planting plan",
        "Visit the 🅿 parking area at A7.",
        "Version 2.5 of FS10 and BOO FS10.",  # no digit where a research ID has its number
        "I am a plant engineer.",
        "I am an environmentalist biologist by training.",
        "and/or plant-based diets",
    ],
)
def test_their_prose_stays_prose(text):
    assert names(text) == []

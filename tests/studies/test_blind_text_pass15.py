"""Hostile pass 15's last blind-text gaps: a dotless i ("Kımı"), a 1 written for an l ("L1ama"), a
model's name hyphenated across a line break ("Gem-\\nini") or with a space inside ("Gem ini")
reached raters unchanged. Prose that looks the same to a plain search stays prose."""

from __future__ import annotations

import pytest

from core.text_forms import latin_look_alike, reader_form
from studies.blind_text import MODEL, ROLE, BlindTerm
from tests.studies.test_blind_text import TERMS, names

CATALOGUE = [*TERMS, BlindTerm("Llama", MODEL), BlindTerm("Mistral Large", MODEL)]


@pytest.mark.parametrize(
    "text, found",
    [
        ("As Kımı, I would rebuild the dams.", ["Kımı"]),
        ("I am L1ama, trained to help.", ["L1ama"]),
        ("I am 1lama, trained to help.", ["1lama"]),
        ("K1mi thinks the sea wall comes first.", ["K1mi"]),  # a 1 still reads as an i
        ("This answer was written by Gem-\nini for the team.", ["Gem-\nini"]),
        ("This answer was written by Clau‐  \n de for the team.", ["Clau‐  \n de"]),
        ("I am Gem ini, and I propose sea walls.", ["Gem ini"]),
        ("Signed: Mis tral Lar ge", ["Mis tral Lar ge"]),
        ("As the Environmentalıst, I propose green roofs.", ["Environmentalıst"]),
    ],
)
def test_the_gaps_of_pass_15_are_found(text, found):
    assert names(text, CATALOGUE) == found


@pytest.mark.parametrize(
    "text",
    [
        "The gem in it shines; a well-\nknown plan.",
        "We plant trees on the coast-\nline and monitor them.",
        "Cities 1 to 10 need 1l of water each.",
        "The gem ini­tiative",  # a soft hyphen inside "initiative": one word, not a name
    ],
)
def test_prose_that_looks_alike_stays_prose(text):
    assert names(text, CATALOGUE) == []


def test_unicode_names_the_latin_letter_a_look_alike_is_written_for():
    assert [latin_look_alike(c) for c in "ıȷᴘⱥꞮ"] == ["i", "j", "p", "a", "I"]
    assert latin_look_alike("ĸ") == "ĸ"  # kra is a letter of its own, no k


def test_a_word_hyphenated_across_lines_keeps_where_each_letter_came_from():
    text = "by Gem-\n  ini."
    seen, origins = reader_form(text)
    assert seen == "by Gemini."
    assert [text[i] for i in origins] == list("by Gemini.")


def test_a_role_is_not_split_where_a_model_is():
    """Only a model's name (looked for anywhere) may have a space inside: a role's word with a
    space is two words of prose."""
    assert names("As the Pl ant, I propose walls.", [BlindTerm("Plant", ROLE)]) == []

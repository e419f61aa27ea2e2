"""The phrasings hostile pass 13 left for later: a model called by its product line ("As Opus
4.1"), a member's number spelled in lower case or put first ("as member one", "the first
member"), a word between the team and a role ("the team's creative plant"), teammates in the
plural ("both debaters agreed") and what an agent does to the team's work ("the synthesizer
merged our ideas"). Each is found; prose near them is left alone."""

from __future__ import annotations

import pytest

from studies.blind_text import MODEL, ROLE, BlindTerm
from studies.models import ModelEndpoint
from studies.selectors import _model_names
from tests.studies.test_blind_text import TERMS, names

MORE = [*TERMS, BlindTerm("Synthesizer", ROLE), BlindTerm("Opus 4.1", MODEL), BlindTerm("Opus 4", MODEL)]


@pytest.mark.parametrize(
    "text, found",
    [
        ("As Opus 4.1, I suggest we float the farms.", ["Opus 4.1"]),
        ("I am opus-4 and I think we should vote.", ["opus-4"]),
        ("As member one, I think we should vote.", ["member one"]),
        ("As the first member, I think we should vote.", ["first member"]),
        ("I am the 1st member of this team.", ["1st member"]),
        ("As the team's creative plant, I propose floating farms.", ["plant"]),
        ("Our sceptical monitor evaluator questioned our plan.", ["monitor evaluator"]),
        ("Both debaters agreed that we should float the farms.", ["debaters"]),
        ("The two implementers argued, and we agree.", ["implementers"]),
        ("The synthesizer merged our ideas into one plan.", ["synthesizer"]),
        ("Our synthesizer combined all of our proposals.", ["synthesizer"]),
        ("The moderator challenged our assumptions, so we revised them.", ["moderator"]),
    ],
)
def test_the_phrasings_left_by_pass_13_are_found(text, found):
    assert names(text, MORE) == found


@pytest.mark.parametrize(
    "text",
    [
        "Beethoven's magnum opus was finished in 1824; a sonnet has 14 lines.",
        "Each member first votes, then member two counts the ballots.",
        "The first member of the council said we should wait.",
        "Both plants grew fast in the floating farms.",
        "Both implementers of the policy agreed.",
        "The plant merged with another company, and we lost jobs.",
        "As a green plant, the facility cleans the air.",
        "The old plant combined heat and power for the city.",
    ],
)
def test_prose_near_them_is_left_alone(text):
    assert names(text, MORE) == []


@pytest.mark.parametrize(
    "model_name, lines",
    [
        ("claude-opus-4-1-20250805", {"Opus 4.1", "Opus 4"}),
        ("anthropic/claude-3-5-sonnet-20241022", {"Sonnet 3.5", "Sonnet 3"}),
        ("gemini-2.5-flash", set()),  # a variant word, no line of its own
        ("grok-4-fast", set()),
        ("deepseek-reasoner", set()),  # no version: the word alone is prose
    ],
)
def test_an_endpoint_gives_its_product_line_with_its_version(model_name, lines):
    endpoint = ModelEndpoint(name="M", model_name=model_name)
    assert {n for n in _model_names(endpoint) if " " in n and n[-1].isdigit()} == lines

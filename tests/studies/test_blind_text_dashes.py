"""The hyphen's look-alikes (U+2010, U+2011, the en dash) and the katakana middle dot inside a name:
the reader's form reads them as the hyphen and the Latin middle dot, one character for one, so that
a name's pattern needs no wider class; every spelling is found where the text has it, and the prose
with them stays prose."""

from __future__ import annotations

import pytest

from core.text_forms import reader_form
from studies.blind_text import MODEL, BlindTerm, blind_spans
from tests.studies.test_blind_text_pass19_rest import TERMS

DASHES = ("\u2010", "\u2011", "\u2013")


def names(text: str) -> list[str]:
    return [text[s.start : s.end] for s in blind_spans(text, TERMS)]


@pytest.mark.parametrize("dash", DASHES)
@pytest.mark.parametrize(
    ("template", "found"),
    [
        ("As Ki{d}mi, I suggest dikes.", "Ki{d}mi"),  # a model's name split inside a word
        ("I am Q{d}wen.", "Q{d}wen"),
        ("As the Imple{d}menter, I propose dikes.", "Imple{d}menter"),  # a role's longer word
        ("As the Monitor{d}Evaluator, I find it costly.", "Monitor{d}Evaluator"),  # between words
        ("我是千{d}问。", "千{d}问"),  # between Chinese letters
    ],
)
def test_a_name_with_a_dash_inside_is_found_where_the_text_has_it(template, found, dash):
    assert names(template.format(d=dash)) == [found.format(d=dash)]


@pytest.mark.parametrize("dot", ["\u30fb", "\uff65", "\u00b7"])  # katakana, half-width, Latin
def test_a_chinese_name_with_a_middle_dot_inside_is_found(dot):
    assert names(f"我是千{dot}问。") == [f"千{dot}问"]


@pytest.mark.parametrize("written", ["千・问", "千･问", "千·问"])
@pytest.mark.parametrize("text", ["我是千・问。", "我是千·问。", "我是千･问。"])
def test_a_catalogue_name_with_a_middle_dot_is_read_as_the_text_is(written, text):
    """The catalogue's own names are read as the text is: a name written with either middle dot is
    found however the text writes it."""
    assert [text[s.start : s.end] for s in blind_spans(text, [BlindTerm(written, MODEL)])] == [text[2:5]]


@pytest.mark.parametrize("dash", DASHES)
@pytest.mark.parametrize(
    "template", ["Plant{d}animal links matter.", "We met 9{d}5 in the plant room.", "a well{d}known planter"]
)
def test_prose_with_a_dash_stays_prose(template, dash):
    assert names(template.format(d=dash)) == []


def test_the_reader_form_reads_each_look_alike_as_one_character_where_it_stood():
    text = "Imple\u2010men\u2011ter \u2013 千\u30fb问 \u2014 end"
    seen, origins = reader_form(text)
    assert seen == "Imple-men-ter - 千·问 \u2014 end"  # the em dash is a dash of prose: kept
    assert origins == list(range(len(text)))

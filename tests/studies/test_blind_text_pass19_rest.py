"""The blind-text misses hostile pass 19 left open, with the study's real catalogue and two models:
traditional Chinese, a model's name split by a hyphen or glued to a word at a capital, a debate's
side as a bare label, Belbin's abbreviations as a label, the other side's debaters in Chinese. The
same words in prose stay prose."""

from __future__ import annotations

import pytest

from studies.blind_text import MODEL, BlindTerm, blind_spans
from tests.studies.test_blind_text_pass19 import TERMS as PASS_19_TERMS

MODELS = [
    BlindTerm(name, MODEL)
    for name in ("kimi-k2", "Kimi", "qwen-max", "Qwen", "通义千问", "千问", "deepseek-r1", "claude-opus-4-1")
]
TERMS = [*PASS_19_TERMS, *MODELS]


def names(text: str) -> list[str]:
    return [text[s.start : s.end] for s in blind_spans(text, TERMS)]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("作為執行者，我認為應該先建堤壩。", ["執行者"]),
        ("作為監督評估者，我認為成本太高。", ["監督評估者"]),
        ("我是通義千問。", ["通義千問"]),
        ("As Ki-mi, I suggest dikes.", ["Ki-mi"]),
        ("I am Q-wen.", ["Q-wen"]),
        ("我是千-问。", ["千-问"]),
        ("我是千·问。", ["千·问"]),
        ("QwenChat suggests dikes.", ["Qwen"]),
        ("KimiBot agrees.", ["Kimi"]),
        ("Affirmative: dikes are needed.", ["Affirmative"]),
        ("Round 2 - **Negative**: dikes are costly.", ["Negative"]),
        ("Evaluation (ME): too costly.", ["ME"]),
        ("ME: too costly.", ["ME"]),
        ("**PL**: floating farms.", ["PL"]),
        ("[IMP]: a timetable.", ["IMP"]),
        ("CP: a mural of the flood.", ["CP"]),
        ("对方辩友认为不应建设。", ["辩友"]),
        ("双方辩手都同意建设。", ["辩手"]),
        ("对方辩手的观点有误。", ["辩手"]),
    ],
)
def test_pass_19_remaining_phrasings_are_found(text, found):
    assert names(text) == found


@pytest.mark.parametrize(
    "text",
    [
        "Carbon monoxide (CO) levels rise near the dikes.",
        "Tell me: what is the cost?",
        "The ME region (Middle East) imports water.",
        "The negative effects are small.",
        "Qwenly is no word.",
        "辩手们在电视上辩论了气候问题。",
        "傳統漢字的城市規劃。",
        "The imp of the story.",
    ],
)
def test_their_prose_stays_prose(text):
    assert names(text) == []


def test_traditional_characters_are_read_as_simplified_each_in_its_place():
    from core.text_forms import reader_form

    text = "Ｉ作為執行者，認為ok"
    seen, origins = reader_form(text)
    assert seen == "I作为执行者,认为ok"  # NFKC folds the full-width letter and comma
    assert origins == list(range(len(text)))  # one for one: a span found maps back to the text's own
    changed = [text[i] for i, c in zip(origins, seen, strict=True) if c != text[i]]
    assert changed == list("Ｉ為執，認為")

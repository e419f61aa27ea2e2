"""Hostile pass 22's blind-text findings, with a study's catalogue and its makers: Qwen's own
introduction, the debate judge's JSON and other labels of a side, a debater's side in the first
person, the Chinese judge, teammates thanked, quoted in a summary or named in Chinese; and the prose
beside them that stays prose."""

from __future__ import annotations

import pytest

from studies.blind_text import MAKER, BlindTerm, blind_spans
from tests.studies.test_blind_text_pass20_rest import CATALOGUE

TERMS = [*CATALOGUE, *(BlindTerm(maker, MAKER) for maker in ("阿里巴巴", "阿里巴巴集团", "阿里云"))]


def names(text: str) -> list[str]:
    return [text[s.start : s.end] for s in blind_spans(text, TERMS)]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("我是阿里巴巴集团旗下的超大规模语言模型。", ["阿里巴巴集团"]),
        ("我是阿里云研发的超大规模语言模型。", ["阿里云"]),
        ('"Whether there is a preference": "Yes", "Supported Side": "Negative"', ["Negative"]),
        ("Winner: Negative", ["Negative"]),
        ("Stance: Affirmative", ["Affirmative"]),
        ("I'm on the negative side.", ["negative"]),
        ("I am arguing the negative.", ["negative"]),
        ("我认为反方的论证更有说服力。", ["反方"]),
        ("我判正方胜。", ["正方"]),
        ("正方更有说服力。", ["正方"]),
        ("Thanks to our moderator for keeping us on track.", ["moderator"]),
        ("Our moderator's summary is below.", ["moderator"]),
        ("The implementer told us costs are fine.", ["implementer"]),
        ("Let me summarize as moderator.", ["moderator"]),
        ("Now it's my turn as implementer.", ["implementer"]),
        ("我们的执行者提醒大家注意成本。", ["执行者"]),
        ("执行者意见：成本可控。", ["执行者"]),
        ("最后，协调者总结了大家的意见。", ["协调者"]),
        ("作为执行者的我建议分三期实施。", ["执行者"]),
        ("As the <b>Plant</b>, I suggest floating homes.", ["Plant"]),
        ("As the ==Implementer==, I propose dikes.", ["Implementer"]),
        ("Response A07\\_FS10 is mine.", ["A07\\_FS10"]),  # Markdown shows it as A07_FS10
        ("Response A07.FS10 is mine.", ["A07.FS10"]),
        ("author: Implementer", ["Implementer"]),
        ("Perspective: Environmentalist", ["Environmentalist"]),
        ("Members: Futurist.", ["Futurist"]),
        ("Dear moderator, here is my answer.", ["moderator"]),
    ],
)
def test_pass_22_phrasings_are_found(text, found):
    assert names(text) == found


@pytest.mark.parametrize(
    "text",
    [
        "我是阿里巴巴的忠实用户。",
        "我是阿里云的客户经理。",
        "The winner of the election: the negative campaign lost.",
        "我们的创业者很有想法。",
        "感谢政府的支持。",
        "正方形的广场。",
        "The plant told the press it would close.",  # no first person after it
        "<b>The plant</b> closed in 2030.",
        "Hello plant lovers, welcome.",
        "Roles: the city council acts as coordinator.",
        "Version 2.5 of FS10.",
    ],
)
def test_their_prose_stays_prose(text):
    assert names(text) == []

"""Hostile pass 24's blind-text findings: a role as a speaker's label after a glued dash, a double
hyphen or a tilde; a role's heading or label with a word of which contribution ("final answer",
"closing remark", "verdict"); a role with its capital opening a sentence with what it gave; a
teammate said to the reader as "your"; a Chinese sentence of its own that says who trained the
model. And the prose beside them that stays prose."""

from __future__ import annotations

import pytest

from studies.blind_text import blind_spans
from tests.studies.test_blind_text_pass23 import TERMS


def names(text: str) -> list[str]:
    return [text[s.start : s.end] for s in blind_spans(text, TERMS)]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # a speaker's label with a glued dash, a double hyphen, a tilde
        ("Moderator—keep a fixed bedtime and avoid screens.", ["Moderator"]),
        ("Implementer—the plan is X.", ["Implementer"]),
        ("Futurist -- we should invest.", ["Futurist"]),
        ("Moderator ~ keep going.", ["Moderator"]),
        # a heading or label naming which contribution
        ("Plan first.\n## Moderator's final answer\nDo it.", ["Moderator"]),
        ("**Moderator final answer**", ["Moderator"]),
        ("### Moderator's final verdict", ["Moderator"]),
        ("Moderator closing remark: go.", ["Moderator"]),
        ("Futurist verdict: go.", ["Futurist"]),
        ("## Futurist final answer", ["Futurist"]),
        # a role with its capital opening a line as the label of what it gave
        ("Synthesizer's summary follows.", ["Synthesizer"]),
        ("We met.\nImplementer's plan:\n1. Dikes", ["Implementer"]),
        ("Plant's ideas", ["Plant"]),
        # a teammate as the reader's, with its capital
        ("Your Moderator recommends this.", ["Moderator"]),
        ("Your Implementer will handle it.", ["Implementer"]),
        # who trained the model, in a Chinese sentence of its own
        ("由谷歌训练。保持固定的作息时间。", ["谷歌"]),
        ("由阿里巴巴开发", ["阿里巴巴"]),
        ("由 Google 训练。", ["Google"]),
        # prose
        ("The plant's output rose.", []),
        ("Your plant needs water.", []),
        ("由百度开发的地图很准确。", []),
        ("Plant trees -- lots of them.", []),
        ("The power plant's plan is to expand.", []),
        ("Your environmentalist friends argue loudly.", []),
        ("Moderate rain -- then sun.", []),
        # the first rules' prose, found by the review of this pass: advice to the reader, a role's word
        # in a sentence, a compound after a dash, "about N", a Chinese sentence that goes on
        ("If your wedding coordinator suggests a date, take it.", []),
        ("Ask whether your project coordinator agrees.", []),
        ("Your local moderator said the thread was closed.", []),
        ("Plant's response to drought is slow.", []),
        ("Plant's input costs rose.", []),
        ("Moderator's response time on Reddit varies.", []),
        ("Plant—based meals cut emissions.", []),
        ("Moderator ~ 30 years in the job.", []),
        ("支付宝很好用。由阿里巴巴开发，我很喜欢。", []),
    ],
)
def test_pass_24(text, found):
    assert names(text) == found

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
        # a role with its capital opening a sentence, with what it gave
        ("Synthesizer's summary follows.", ["Synthesizer"]),
        ("Implementer's plan is to do X.", ["Implementer"]),
        ("We met. Plant's ideas are good", ["Plant"]),
        # a teammate as the reader's
        ("Your Moderator recommends this.", ["Moderator"]),
        ("Your friendly moderator recommends this.", ["moderator"]),
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
    ],
)
def test_pass_24(text, found):
    assert names(text) == found

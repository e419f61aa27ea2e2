"""Hostile pass 19's blind-text findings, with the study's real catalogue: a research ID glued to
Chinese, a team role that is no everyday word speaking at a clause's start in Chinese, a role with
its capital opening a sentence before what it said, teammates in the present ("Both debaters
agree"). The same words in prose stay prose."""

from __future__ import annotations

import pytest

from studies.blind_text import MAKER, RESEARCH_ID, BlindTerm, blind_spans
from tests.studies.test_blind_text_pass18 import TERMS as PASS_18_TERMS

MAKERS = [BlindTerm(name, MAKER) for name in ("Google", "Alibaba", "Mistral")]
TERMS = [*PASS_18_TERMS, *MAKERS, BlindTerm("FS10", RESEARCH_ID)]


def names(text: str) -> list[str]:
    return [text[s.start : s.end] for s in blind_spans(text, TERMS)]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("本回答编号A05_FS10。", ["A05_FS10"]),
        ("响应A05_FS10。", ["A05_FS10"]),
        ("A05_FS10的回答。", ["A05_FS10"]),
        ("A05_FS10号回答。", ["A05_FS10"]),
        ("执行者认为时间表可行。", ["执行者"]),
        ("协调者指出，方案可行。", ["协调者"]),
        ("监督评估者认为方案可行。", ["监督评估者"]),
        ("另一位执行者认为可行。", ["执行者"]),
        ("团队的执行者认为可行。", ["执行者"]),
        ("据执行者所说，可行。", ["执行者"]),
        ("我同意执行者。", ["执行者"]),
        ("智多星的想法：建浮岛。", ["智多星"]),
        ("执行者的计划：先建堤坝。", ["执行者"]),
        ("Implementer objected that costs rise.", ["Implementer"]),
        ("Plant suggested floating farms.", ["Plant"]),
        ("Moderator concluded the round.", ["Moderator"]),
        ("Co-Ordinator summarised the plan.", ["Co-Ordinator"]),
        ("Both debaters agree on dikes.", ["debaters"]),
        ("As a model developed at Alibaba, I suggest dikes.", ["Alibaba"]),
        ("My creators at Google would agree.", ["Google"]),
        ("My training was done by Mistral.", ["Mistral"]),
        ("The company that trained me, Google, says so.", ["Google"]),
        ("谷歌出品的模型。", ["谷歌"]),
        ("As the affirmative, I argue for dikes.", ["affirmative"]),
        ("Speaking for the negative, we object.", ["negative"]),
        ("The affirmative's argument is weak.", ["affirmative"]),
        ("正方一辩认为应当建设。", ["正方"]),
        ("反方二辩认为不应建设。", ["反方"]),
        ("我方（正方）认为应当建设。", ["正方"]),
        ("Critique by the monitor evaluator: too costly.", ["monitor evaluator"]),
    ],
)
def test_pass_19_phrasings_are_found(text, found):
    assert names(text) == found


@pytest.mark.parametrize(
    "text",
    [
        "ABC07_FS10 is a part number.",
        "未来学家认为，城市会漂浮。",  # an everyday word: futurists of the scenario
        "主持人表示欢迎。",
        "环保主义者认为堤坝有害。",
        "政策执行者提出了新的时间表。",
        "Plant trees along the coast.",
        "Environmentalists argue that dikes harm wetlands.",
        "The plant suggested by the council is large.",
        "The data was collected by Google researchers.",
        "A model developed at Google predicts floods.",
        "The company that trained the staff, Google, left.",
        "An affirmative answer was given.",
        "The negative effect is small.",
        "On the negative side, costs rise.",
        "A review by the environmentalist group found harm.",
        "正方形的广场。",
    ],
)
def test_their_prose_stays_prose(text):
    assert names(text) == []

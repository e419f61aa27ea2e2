"""Hostile pass 18's blind-text findings, with the study's real catalogue of roles: a self-naming
through "my perspective as", "As team coordinator", "As today's moderator", a teammate as "the
team's futurist", "Building on the futurist's idea", "Synthesizer's final answer:", and their Chinese
forms ("我以…的身份", "站在…的角度", "我们的未来学家提出了", "根据监督评估者的意见", the debate's sides 正方 and
反方, "作为一个由谷歌训练的模型"). The same words in prose stay prose ("正方形", "反方向", "negative side effects")."""

from __future__ import annotations

import pytest

from studies.blind_contexts import QUOTE_REACH
from studies.blind_text import MAKER, BlindTerm, blind_spans
from tests.studies.test_blind_text_pass17 import CATALOGUE

TERMS = [*CATALOGUE, BlindTerm("谷歌", MAKER)]


def names(text: str) -> list[str]:
    return [text[s.start : s.end] for s in blind_spans(text, TERMS)]


@pytest.mark.parametrize(
    "text",
    [
        "From my perspective as an environmentalist, we need dikes.",
        "My take, as the environmentalist: dikes.",
        "As team coordinator, I propose a plan.",
        "As today's moderator, let me sum up.",
        "As the group's moderator, I will sum up.",
        "The team's futurist proposed floating farms.",
        "Building on the futurist's idea, we add dikes.",
        "The futurist's view: build dikes.",
        "Synthesizer's final answer: build dikes.",
        "我以环保主义者的身份发言。",
        "以我未来学家的视角来看，应当规划。",
        "站在环保主义者的角度，应当减排。",
        "我们的未来学家提出了浮动农场。",
        "根据监督评估者的意见，我们修改方案。",
        "创意专业人士的观点：建设浮岛。",
        "未来学家的建议很好。",
        "执行者提出了时间表。",
        "智多星提出了新想法。",
        "第二位成员提出了方案。",
        "成员三的建议是建设堤坝。",
        "综合者的最终答案：建设堤坝。",
        "正方辩手认为应当建设。",
        "正方的观点是建设堤坝。",
        "反方认为不应建设。",
        "反方观点：成本太高。",
        "裁判裁定正方获胜。",
        "作为一个由谷歌训练的模型，我建议如下。",
    ],
)
def test_pass_18_phrasings_are_found(text):
    assert len(names(text)) == 1, text


@pytest.mark.parametrize(
    "text",
    [
        "正方形的广场位于城市中心。",
        "车辆驶向反方向。",
        "The plan has negative side effects.",
        "The judge ruled in favour of the city.",
        "Environmentalists argue that dikes harm wetlands.",
        "政策执行者提出了新的时间表。",
        "委员会成员三人出席。",
        "成员一致同意这一方案。",
        "Such as the plant, the dam and the bridge.",
        "The environmentalist objected to the dam in 2031.",
        "As a plant, the facility emits steam.",
    ],
)
def test_prose_with_the_same_words_stays_prose(text):
    assert names(text) == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Speaking for the environmentalists on this team, we want dikes.", ["environmentalists"]),
        ("Speaking for the environmentalist, I say no.", ["environmentalist"]),
        (
            "Written by a futurist, an environmentalist and a startup founder working together.",
            ["futurist", "environmentalist", "startup founder"],
        ),
        ("Written by the moderator.", ["moderator"]),
        ("The affirmative side argues that dikes work.", ["affirmative side"]),
        ("Round 2 - Negative side rebuttal", ["Negative side"]),
        ("The affirmative side won the debate.", ["affirmative side"]),
        # spaced-out letters before it no longer swallow the pronoun ("xxI am")
        ("x x I am an environmentalist.", ["environmentalist"]),
        ("a b I'm the moderator, and I agree.", ["moderator"]),
    ],
)
def test_pass_18_last_phrasings_are_found(text, found):
    """The four wordings pass 18 listed as still missed: a speaker for a role's plural, a credit
    line listing roles, the debate's sides in English before an arguer's word."""
    assert names(text) == found


@pytest.mark.parametrize(
    "text",
    [
        "A report written by a futurist predicted floods.",
        "A lobbyist speaking for the environmentalists asked for dikes.",
        "On the negative side, costs rise.",
        "On the negative side: costs rise.",
        "The affirmative side of the ledger is strong.",
        "As the Plant, the plant grows.",  # the self-naming only: the prose plant after it stays
    ],
)
def test_their_prose_stays_prose(text):
    assert names(text) in ([], ["Plant"])
    assert "plant" not in names(text)


def test_a_quotation_is_read_back_at_most_quote_reach_on_one_line():
    """A text of one long line made every name count the quotes back to its start (seconds a
    megabyte, growing squared); a quotation now opens at most ``QUOTE_REACH`` characters back."""
    quoted = '"I am an environmentalist," says Maria.'
    assert names(quoted) == []
    far = '"' + "x " * QUOTE_REACH + 'I am an environmentalist," says Maria.'
    assert names(far) == ["environmentalist"]  # too far back to be read as her words: held

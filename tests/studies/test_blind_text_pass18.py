"""Hostile pass 18's blind-text findings, with the study's real catalogue of roles: a self-naming
through "my perspective as", "As team coordinator", "As today's moderator", a teammate as "the
team's futurist", "Building on the futurist's idea", "Synthesizer's final answer:", and their Chinese
forms ("我以…的身份", "站在…的角度", "我们的未来学家提出了", "根据监督评估者的意见", the debate's sides 正方 and
反方, "作为一个由谷歌训练的模型"). The same words in prose stay prose ("正方形", "反方向", "negative side effects")."""

from __future__ import annotations

import pytest

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

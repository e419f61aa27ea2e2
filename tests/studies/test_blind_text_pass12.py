"""Hostile pass 12, F3: phrasings a multi-agent transcript holds that reached raters unchanged
(114 of 186 passed). Each is now found, with the name it gives; prose near them is left alone."""

from __future__ import annotations

import pytest

from studies.blind_text import MODEL, ROLE, BlindTerm
from tests.studies.test_blind_text import TERMS
from tests.studies.test_blind_text import names as names_in

MORE = [
    BlindTerm(text, ROLE)
    for text in ("Synthesizer", "Member 3", "审议员", "实施者", "正方", "辩手甲", "1号成员", "第一位成员",
                 "监督评估者", "智多星", "协调者")
] + [BlindTerm("Llama", MODEL), BlindTerm("羊驼", MODEL)]  # fmt: skip


def names(text: str) -> list[str]:
    return names_in(text, [*TERMS, *MORE])


@pytest.mark.parametrize(
    "text, found",
    [
        # speaker labels with a sign before or after, a turn, other brackets and joints
        ("💡 Plant: we float the farms.", ["Plant"]),
        ("★ Plant: we float the farms.", ["Plant"]),
        ("→ Plant: we float the farms.", ["Plant"]),
        ("– Plant: we float the farms.", ["Plant"]),
        ("Plant 🌱: we float the farms.", ["Plant"]),
        ("Plant, turn 3: we float the farms.", ["Plant"]),
        ("Turn 3 / Plant: we float the farms.", ["Plant"]),
        ("Plant = we float the farms.", ["Plant"]),
        ("Plant | we float the farms.", ["Plant"]),
        ("〔Plant〕 we float the farms.", ["Plant"]),
        ("Debater (A): I disagree.", ["Debater (A"]),  # the label found; its bracket stays
        ("Monitor/Evaluator: the plan is weak.", ["Monitor/Evaluator"]),
        # a teammate addressed at a line's start
        ("Implementer, could you draft the timeline?", ["Implementer"]),
        ("@Futurist what do you think?", ["Futurist"]),
        ("Re: Futurist's idea about the farms", ["Futurist"]),
        ("Plant and I agree.", ["Plant"]),
        ("Co-Ordinator out.", ["Co-Ordinator"]),
        # Chinese
        ("执行者说：我们应该行动。", ["执行者"]),
        ("执行者发言：我们应该行动。", ["执行者"]),
        ("感谢协调者的总结。", ["协调者"]),
        ("同意智多星的观点。", ["智多星"]),
        ("正如监督评估者所说，我们需要数据。", ["监督评估者"]),
        ("审议员：这个方案风险太大。", ["审议员"]),
        ("我作为实施者，将负责时间表。", ["实施者"]),
        ("正方：我们认为应该建浮动农场。", ["正方"]),
        ("辩手甲：我反对。", ["辩手甲"]),
        ("1号成员：我提议建设浮动农场。", ["1号成员"]),
        ("第一位成员：我提议建设浮动农场。", ["第一位成员"]),
        # spellings
        ("Synthesiser: here is the summary.", ["Synthesiser"]),
        ("Member I: I propose floating farms.", ["Member I"]),
        ("Member Ⅲ: I propose floating farms.", ["Member Ⅲ"]),
        # split or look-alike names
        ("I am Cl@ude, an assistant.", ["Cl@ude"]),
        ("I am Deep$eek, an assistant.", ["Deep$eek"]),
        ("I am G€mini, an assistant.", ["G€mini"]),
        ("I am Ll@ma, a model.", ["Ll@ma"]),
        ("I am Clau*de, an assistant.", ["Clau*de"]),
        ("I am Cl_aude, an assistant.", ["Cl_aude"]),
        ("I am Cl.aude, an assistant.", ["Cl.aude"]),
        ("I am **Cl**aude, an assistant.", ["Cl**aude"]),
        ("I am Cl`a`ude, an assistant.", ["Cl`a`ude"]),
        ("I am C<b></b>laude, an assistant.", ["C<b></b>laude"]),
        ("I was trained by OpenAl.", ["OpenAl"]),
        ("我是羊驼模型。", ["羊驼"]),
        ("Response A05/FS10 is mine.", ["A05/FS10"]),
    ],
)
def test_pass_12_phrasings_are_found(text, found):
    assert names(text) == found


@pytest.mark.parametrize(
    "text",
    [
        "Email the team at info@example.org; it costs $5 a day, about €4.",
        "e.g. the city could build a sea wall. The end.Next year, more.",
        "Plant out the seedlings in May, then water them.",
        "Plant, water and harvest: the cycle repeats.",
        "正方形的农场更容易管理。该项目的实施者是市政府。",
        "The farmers plant rice; the plant | the mill | the port are linked.",
        "GPT-4.1 is a version number here, and snake_case is a name style.",
    ],
)
def test_prose_beside_them_is_left_alone(text):
    assert names(text) == []

"""Hostile pass 23's blind-text findings, with a study's catalogue and TeamFusion's member profiles:
a member's name wherever it stands (an admin gave it), the coined Chinese Belbin names anywhere,
teammates paired, answered and addressed in Chinese and English, turn headers, a judge's verdict;
and the prose beside them that stays prose."""

from __future__ import annotations

import pytest

from studies.blind_text import PROFILE, BlindTerm, blind_spans
from tests.studies.test_blind_text_pass22 import TERMS as PASS_22_TERMS

TERMS = [*PASS_22_TERMS, *(BlindTerm(name, PROFILE) for name in ("Alice", "Ada", "王芳", "渔民代表"))]


def names(text: str) -> list[str]:
    return [text[s.start : s.end] for s in blind_spans(text, TERMS)]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # a member's name, as TeamFusion's synthesizer writes of the members
        ("Given Alice's stated preference for wetlands, I agree.", ["Alice"]),
        ("Representing Alice, I prefer wetlands.", ["Alice"]),
        ("王芳的偏好是保护湿地。", ["王芳"]),
        ("王芳 prefers wetlands.", ["王芳"]),
        ("渔民代表认为应保护湿地。", ["渔民代表"]),
        # a coined Chinese Belbin name, anywhere
        ("监督评估者的评估结果显示风险较高。", ["监督评估者"]),
        ("接下来请监督评估者点评。", ["监督评估者"]),
        # Chinese teammates paired, answered, addressed, labelled
        ("协调者与执行者达成共识。", ["协调者"]),
        ("我和智多星意见一致。", ["智多星"]),
        ("执行者的建议被大家采纳了。", ["执行者"]),
        ("大家一致认为执行者的方案更可行。", ["执行者"]),
        ("针对执行者的质疑，智多星作了回应。", ["执行者"]),
        ("我补充一下执行者的观点。", ["执行者"]),
        ("以上是执行者的发言。", ["执行者"]),
        ("据协调者总结，大家同意修建堤坝。", ["协调者"]),
        ("这个方案由执行者起草，由监督评估者审阅。", ["执行者", "监督评估者"]),
        ("好的，协调者。", ["协调者"]),
        ("协调者你好，请看方案。", ["协调者"]),
        ("致执行者：请估算成本。", ["执行者"]),
        ("发言人：执行者", ["执行者"]),
        ("执行者-第3轮：分期实施。", ["执行者"]),
        ("团队中的协调者总结了意见。", ["协调者"]),
        ("我们组的执行者提醒大家注意成本。", ["执行者"]),
        ("我的任务是作为执行者评估可行性。", ["执行者"]),
        ("综合者的总结如下：", ["综合者"]),
        # English teammates addressed or paired with the writer, a turn
        ("Thanks, implementer!", ["implementer"]),
        ("Your turn, implementer.", ["implementer"]),
        ("Well said, coordinator.", ["coordinator"]),
        ("My implementer colleague and I agree.", ["implementer"]),
        ("Our resident futurist dreams big.", ["futurist"]),
        ("Both the futurist and I think so.", ["futurist"]),
        ("Next up: Implementer.", ["Implementer"]),
        # a turn header, a maker named as the model's origin
        ("Implementer's turn (round 3/4)", ["Implementer"]),
        ("Round 3: Implementer", ["Implementer"]),
        ("Round 3/4 · Implementer", ["Implementer"]),
        ("I'm a product of Alibaba Cloud.", ["Alibaba"]),
        ("This model is a product of Alibaba.", ["Alibaba"]),
        ("I hail from Alibaba.", ["Alibaba"]),
        # a role with "GPT" glued on or after it, as agent frameworks name their agents
        ("ImplementerGPT: phase it", ["Implementer"]),
        ("PlantGPT: floating homes", ["Plant"]),
        ("[Moderator GPT] summary", ["Moderator"]),
        # a judge's verdict
        ("After three rounds of debate, the judge sided with the negative.", ["negative"]),
        ("The debate was judged in favour of the negative side.", ["negative"]),
        ("Final ruling: Negative wins on cost.", ["Negative"]),
    ],
)
def test_pass_23_phrasings_are_found(text, found):
    assert names(text) == found


@pytest.mark.parametrize(
    "text",
    [
        "ADA compliance matters for the ferry.",
        "alice blue paint on the walls",
        "Malice aforethought; Alicent.",
        "政策执行者的建议被采纳。",
        "社区协调者与居民达成协议。",
        "人手不足导致执行者无法按时完成。",
        "政府作为协调者，负责统筹。",
        "我是一名环保主义者的支持者。",
        "许多初创企业创始人来到海岛。",
        "吸引创意专业人士入驻。",
        "Thanks, the plant grows.",
        "Well said, Mayor.",
        "Next up: plant trees.",
        "The court sided with the negative campaign.",
        "Decision: Negative impacts outweigh benefits.",
        "Verdict: negative for the fishermen.",
        "Both the futurist movement and I agree.",
        "Step 3: Plant trees along the dike.",
        "The PowerPlant GPT upgrade",
        "Round 2: the plant grows",
        "The phone is a product of Alibaba.",
    ],
)
def test_pass_23_prose_stays_prose(text):
    assert names(text) == []

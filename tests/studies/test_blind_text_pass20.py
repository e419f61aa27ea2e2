"""Hostile pass 20's blind-text findings, with the study's real catalogue (pass 19's, with Kimi,
Qwen and DeepSeek's product line): a debate's side naming the speaker in Chinese, Chinese labels and
teammates, English teammates and debate sides, "Implementor", a product line as a label, look-alike
capitals read as an I, l and I swapped. The same words in prose stay prose."""

from __future__ import annotations

import pytest

from core.text_forms import reader_form
from tests.studies.test_blind_text_pass19_rest import names


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("作为正方，我认为应当建设。", ["正方"]),
        ("我方是正方。", ["正方"]),
        ("我们是反方。", ["反方"]),
        ("正方陈词：应当建设。", ["正方"]),
        ("作为辩论的正方，我们认为应当建设。", ["正方"]),
        ("角色：执行者", ["执行者"]),
        ("身份：执行者", ["执行者"]),
        ("我被分配为执行者。", ["执行者"]),
        ("我担当执行者，建议先建堤坝。", ["执行者"]),
        ("我将以未来学家的视角分析。", ["未来学家"]),
        ("（执行者视角）先建堤坝。", ["执行者"]),
        ("听了执行者的发言，我认为时间表可行。", ["执行者"]),
        ("在执行者看来，时间表可行。", ["执行者"]),
        ("我和执行者都认为时间表可行。", ["执行者"]),
        ("执行者和我都认为时间表可行。", ["执行者"]),
        ("监督评估者担心成本过高。", ["监督评估者"]),
        ("监督评估者的担忧是合理的。", ["监督评估者"]),
        ("请执行者补充。", ["执行者"]),
        ("我赞成协调者的方案。", ["协调者"]),
        ("本人是谷歌开发的AI。", ["谷歌"]),
        ("The monitor evaluator's concerns about cost are valid.", ["monitor evaluator"]),
        ("The moderator has asked me to summarise.", ["moderator"]),
        ("Per the moderator's request, a summary:", ["moderator"]),
        ("My teammate the implementer said a timetable helps.", ["implementer"]),
        ("Building on what the implementer said, a timetable helps.", ["implementer"]),
        ("As the environmentalist pointed out, wetlands matter.", ["environmentalist"]),
        ("Earlier, the implementer proposed a timetable.", ["implementer"]),
        ("In our team discussion, the futurist argued for floating cities.", ["futurist"]),
        ("I support the environmentalist's position.", ["environmentalist"]),
        ("Good point, futurist.", ["futurist"]),
        ("The environmentalist in me objects.", ["environmentalist"]),
        ("The creative professional on the team suggested a mural.", ["creative professional"]),
        ("I was told to act as the team's implementer.", ["implementer"]),
        ("Implementer hat on: a timetable.", ["Implementer"]),
        ("The Affirmative maintains that dikes work.", ["Affirmative"]),
        ("We, the affirmative, argue for dikes.", ["affirmative"]),
        ("We on the negative side object.", ["negative"]),
        ("I declare the affirmative the winner.", ["affirmative"]),
        ("The winner of this debate is the affirmative.", ["affirmative"]),
        ("Negative rebuttal: too costly.", ["Negative"]),
        ("Affirmative Constructive: dikes are needed.", ["Affirmative"]),
        ("I was assigned the affirmative.", ["affirmative"]),
        ("Side: Affirmative", ["Affirmative"]),
        ("As the implementor, I propose a timetable.", ["implementor"]),
        ("Our implementor proposed a timetable.", ["implementor"]),
        ("R1 here: build dikes.", ["R1"]),
        ("[R1] build dikes.", ["R1"]),
        ("— Opus", ["Opus"]),
        ("Model: R1", ["R1"]),
        ("As the Ιmplementer, I propose a timetable.", ["Ιmplementer"]),  # Greek capital iota
        ("As the Іmplementer, I propose a timetable.", ["Іmplementer"]),  # Cyrillic
        ("As Member ΙΙΙ, I agree.", ["Member ΙΙΙ"]),
        ("As the lmplementer, I propose a timetable.", ["lmplementer"]),
        ("I am KIMl.", ["KIMl"]),
        ("I am K!mi.", ["K!mi"]),
        ("I am K|mi.", ["K|mi"]),
        ("I am K•i•m•i.", ["K•i•m•i"]),
        # hostile pass 21: a team's turns in Chinese, everyday roles included
        ("请未来学家发言。", ["未来学家"]),
        ("轮到执行者发言。", ["执行者"]),
        ("现在由环保主义者发言。", ["环保主义者"]),
        ("以下是执行者的意见。", ["执行者"]),
        ("第一轮——执行者：先做预算。", ["执行者"]),
        ("I am the Moderator of this discussion.", ["Moderator"]),
    ],
)
def test_pass_20_phrasings_are_found(text, found):
    assert names(text) == found


@pytest.mark.parametrize(
    "text",
    [
        "I was told to be an environmentalist country by 2040.",
        "The government must act as the coordinator of relief.",
        "协调员表示，救援物资已经到位。",  # everyday stakeholders of a scenario
        "监督者认为预算合理。",
        "实施者认为时间表可行。",
        "在政府看来，堤坝必要。",
        "在未来学家看来，城市会漂浮。",  # an everyday word: futurists of the scenario
        "我和环保主义者都关心湿地。",
        "the implement of war",
        "The negative effects are small; the affirmative answer came late.",
        "Good point about the plant.",
        "As the government pointed out, wetlands matter.",
        "Carbon monoxide (CO) levels rise.",
        "CIA agents and AIrline staff.",
        "the R1 road runs north.",
        # hostile pass 21: titles of the scenario's people, with their capitals
        "The Judge of the International Court may rule on ocean dumping.",
        "A federal Judge blocked the plastic ban.",
        "The Moderator of the forum closed the thread.",
        "The Implementer of the policy is the state.",
    ],
)
def test_their_prose_stays_prose(text):
    assert names(text) == []


def test_a_look_alike_capital_is_read_as_the_capital_i():
    assert reader_form("Ιmplementer ΙΙΙ")[0] == "Implementer III"
    assert reader_form("іdea")[0] == "idea"  # a small Cyrillic і stays a small i

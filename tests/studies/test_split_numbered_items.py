import pytest

from studies.parsing import parse_response, split_numbered_items


def _a05_answers(data_a):
    scores = data_a[0][3]
    return ["\n".join(it["Content"] for it in scores[f"Step-{n}"] if "Content" in it) for n in range(1, 7)]


def test_split_numbered_items_on_the_real_a05_fs10_answer(data_a):
    parsed = parse_response(_a05_answers(data_a))
    assert len(parsed.items[1]) == 8
    assert len(parsed.items[3]) == 8
    assert len(parsed.items[4]) == 5
    assert parsed.items[1][0].startswith("The concentration of microplastics")
    assert parsed.items[4][1] == "Which pathway requires the lowest one-time capital investment?"
    assert parsed.blank_items == {1: 0, 3: 0}


@pytest.mark.parametrize(
    "text",
    [
        "1、海洋微塑料可能破坏食物链。\n2、数据协议可能不兼容。\n3、旅游压力可能转移。",
        "（1）海洋微塑料可能破坏食物链。\n（2）数据协议可能不兼容。\n（3）旅游压力可能转移。",
        "1) 海洋微塑料可能破坏食物链。\n2) 数据协议可能不兼容。\n3) 旅游压力可能转移。",
        "以下是团队的最终挑战：\n\n**1.** 海洋微塑料可能破坏食物链。\n\n**2.** 数据协议可能不兼容。\n\n**3.** 旅游压力可能转移。",
        "挑战一：海洋微塑料可能破坏食物链。\n挑战二：数据协议可能不兼容。\n挑战三：旅游压力可能转移。",
        "- 1. 海洋微塑料可能破坏食物链。\n- 2. 数据协议可能不兼容。\n- 3. 旅游压力可能转移。",
        "### 1. 海洋微塑料可能破坏食物链。\n### 2. 数据协议可能不兼容。\n### 3. 旅游压力可能转移。",
    ],
)
def test_split_numbered_items_tolerates_chinese_numbering_styles(text):
    parsed = split_numbered_items(text)
    assert parsed.items == ["海洋微塑料可能破坏食物链。", "数据协议可能不兼容。", "旅游压力可能转移。"]


def test_split_numbered_items_keeps_nested_lists_inside_their_item():
    text = "1. Deploy sieves.\n   1) buy nets\n   2) train crews\n2. Teach recycling."
    parsed = split_numbered_items(text)
    assert parsed.count == 2
    assert "train crews" in parsed.items[0]


def test_split_numbered_items_caps_at_eight_and_notes_it():
    text = "\n".join(f"{i}. idea {i}" for i in range(1, 11))
    parsed = split_numbered_items(text)
    assert parsed.count == 8
    assert "2 item(s) beyond 8 ignored" in parsed.notes


def test_split_numbered_items_falls_back_to_bullets():
    parsed = split_numbered_items("Our ideas:\n- first idea\n* second idea")
    assert parsed.items == ["first idea", "second idea"]


def test_split_numbered_items_fewer_items_are_blank():
    parsed = parse_response(["1. only one", "", "1. a\n2. b\n3. c", "", "", ""])
    assert parsed.blank_items == {1: 7, 3: 5}

"""Diversity = 1 - mean Self-BLEU, as the release computes it (checked against an independent
re-implementation of the release's description on real English and Chinese texts), plus the
labelled cleaned-token variant."""

import json
import math
from pathlib import Path

import jieba
import pytest
from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

from research.diversity import (
    CLEANED,
    RELEASED,
    diversity,
    diversity_means,
    release_items,
    self_bleu,
    text_diversity,
    tokenize,
)

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "studies" / "data" / "data_A.json"  # the release's data_A.json, unchanged
RUBRIC = ROOT / "studies" / "rubric" / "cgpst-v1.json"


def _english_answer(step: str) -> str:
    """A05_FS10's real Step-1/Step-3 answer (kimi-k2, English), its items one per line as generated."""
    record = json.loads(REFERENCE.read_text(encoding="utf-8"))[0]
    return "\n".join(item["Content"] for item in record[3][step] if "Content" in item)


def _chinese_answer() -> str:
    """Real Chinese prose (the rubric's Chinese level and category descriptions), numbered 1..8,
    with an unnumbered heading line and a blank line as answers have them."""
    texts: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            zh = node.get("zh")
            if isinstance(zh, str) and len(zh) > 20:
                texts.append(zh)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(RUBRIC.read_text(encoding="utf-8")))
    lines = ["以下是八个挑战：", ""] + [f"{i}. {text}" for i, text in enumerate(texts[:8], start=1)]
    return "\n".join(lines)


def _independent(text: str) -> float:
    """The release's procedure re-written from its description: lines starting with 1, 2, ...
    in turn, each kept as line.lstrip()[2:]; list(jieba.cut(item)) with every token; nltk
    sentence_bleu of each item against the others, weights (0.8, 0.2), method1; 1 - mean."""
    items, number = [], 1
    for line in text.split("\n"):
        if line.startswith(str(number)):
            items.append(line.lstrip()[2:])
            number += 1
    grams = [list(jieba.cut(item)) for item in items]
    smooth = SmoothingFunction().method1
    scores = [
        sentence_bleu(grams[:i] + grams[i + 1 :], grams[i], smoothing_function=smooth, weights=(0.8, 0.2))
        for i in range(len(grams))
    ]
    return 1 - sum(scores) / len(scores)


@pytest.mark.parametrize("step", ["Step-1", "Step-3"])
def test_as_released_on_a_real_english_answer(step):
    text = _english_answer(step)
    assert len(release_items(text)) == 8
    values = text_diversity(text)
    assert values[RELEASED] == pytest.approx(_independent(text), abs=1e-12)
    # whitespace tokens match each other across English items: keeping them (as released)
    # lowers diversity clearly below the cleaned-token variant
    assert values[CLEANED] - values[RELEASED] > 0.02


def test_as_released_on_real_chinese_text():
    text = _chinese_answer()
    items = release_items(text)
    assert len(items) == 8 and items[0].startswith(" ")  # "1. xxx"[2:] keeps the space, as released
    values = text_diversity(text)
    assert values[RELEASED] == pytest.approx(_independent(text), abs=1e-12)
    assert 0 < values[RELEASED] < 1 and values[CLEANED] is not None


def test_items_are_split_as_released():
    text = "Challenges:\n1. first\n  2. indented lines do not start with a number\n2. second\n4. skipped\n3、 third"
    assert release_items(text) == [" first", " second", " third"]
    assert release_items("") == [] and text_diversity("1. only one") == {RELEASED: None, CLEANED: None}


def test_tokens_as_released_keep_whitespace_and_the_cleaned_variant_drops_it():
    assert tokenize("我爱北京天安门") == ["我", "爱", "北京", "天安门"]
    assert tokenize(" reduce plastic") == [" ", "reduce", " ", "plastic"]
    assert tokenize(" reduce plastic", variant=CLEANED) == ["reduce", "plastic"]


def test_known_example_by_hand():
    # cleaned "a b c d" vs "a b c e": unigram precision 3/4, bigram 2/3, same length (BP = 1)
    expected = math.exp(0.8 * math.log(3 / 4) + 0.2 * math.log(2 / 3))
    assert self_bleu(["a b c d", "a b c e"], variant=CLEANED) == pytest.approx([expected, expected])
    # as released the three spaces are tokens too: unigrams 6/7, bigrams 5/6
    released = math.exp(0.8 * math.log(6 / 7) + 0.2 * math.log(5 / 6))
    assert diversity(["a b c d", "a b c e"]) == pytest.approx(1 - released)


def test_an_empty_item_scores_zero_and_counts():
    scores = self_bleu(["", "a b", "a b"])
    assert scores[0] == 0 and len(scores) == 3
    assert diversity(["only one item"]) is None and diversity([]) is None


def test_means_per_model_condition_step_and_variant():
    class R:
        def __init__(self, rid, cond):
            self.response_id, self.model_number, self.model, self.condition = rid, "05", "kimi-k2", cond

    values = {
        1: {1: {RELEASED: 0.2, CLEANED: 0.3}, 3: {RELEASED: None, CLEANED: None}},
        2: {1: {RELEASED: 0.4, CLEANED: 0.5}, 3: {RELEASED: 0.5, CLEANED: 0.6}},
        3: {},
    }
    means = diversity_means([R(1, "A"), R(2, "A"), R(3, "B")], values)
    found = {(m.condition, m.step): (m.value, m.n, m.cleaned) for m in means}
    assert found[("A", 1)] == (pytest.approx(0.3), 2, pytest.approx(0.4))
    assert found[("A", 3)] == (0.5, 1, 0.6)
    assert found[("B", 1)] == (None, 0, None)

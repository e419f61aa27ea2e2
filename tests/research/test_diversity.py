"""Diversity = 1 - mean Self-BLEU (jieba tokens, BLEU weights (0.8, 0.2), smoothing method 1)."""

import math

import pytest

from research.diversity import diversity, diversity_means, self_bleu, tokenize


def test_jieba_splits_chinese_into_words():
    assert tokenize("我爱北京天安门") == ["我", "爱", "北京", "天安门"]
    assert tokenize("reduce  plastic waste") == ["reduce", "plastic", "waste"]


def test_known_example_by_hand():
    # "a b c d" vs "a b c e": unigram precision 3/4, bigram precision 2/3, same length (BP = 1)
    expected = math.exp(0.8 * math.log(3 / 4) + 0.2 * math.log(2 / 3))
    scores = self_bleu(["a b c d", "a b c e"])
    assert scores == pytest.approx([expected, expected])
    assert diversity(["a b c d", "a b c e"]) == pytest.approx(1 - expected)


def test_identical_items_have_no_diversity_and_each_item_is_scored_against_the_others():
    assert diversity(["海洋 塑料 污染"] * 3) == pytest.approx(0.0)
    three = self_bleu(["a b c d", "a b c e", "x y z w"])
    # the third item shares nothing with the others: smoothing method 1 keeps it small, not zero
    assert three[2] < 0.1 < three[0]
    assert diversity(["only one item"]) is None and diversity([]) is None


def test_means_per_model_condition_and_step():
    class R:
        def __init__(self, rid, cond):
            self.response_id, self.model_number, self.model, self.condition = rid, "05", "kimi-k2", cond

    means = diversity_means(
        [R(1, "A"), R(2, "A"), R(3, "B")], {1: {1: 0.2, 3: None}, 2: {1: 0.4, 3: 0.5}, 3: {}}
    )
    found = {(m.condition, m.step): (m.value, m.n) for m in means}
    assert found[("A", 1)] == (pytest.approx(0.3), 2)
    assert found[("A", 3)] == (0.5, 1)
    assert found[("B", 1)] == (None, 0)

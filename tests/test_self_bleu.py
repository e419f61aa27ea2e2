"""self_bleu gives exactly nltk's sentence_bleu (weights (0.8, 0.2), smoothing method 1) of each item
against the others, on the study's real texts (English items of data_A.json, the rubric's Chinese level
descriptions, the scenario's sentences) and on edge cases (one-token items, repeats, duplicates)."""

import json
import re
from pathlib import Path

import pytest
from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

from scoring.diversity import BLEU_WEIGHTS, self_bleu, tokenize

DATA = Path(__file__).resolve().parent.parent / "scoring"


def nltk_self_bleu(items: list[str]) -> list[float]:
    """The reference: nltk called per item, as the paper's script does."""
    smoothing = SmoothingFunction().method1
    tokens = [tokenize(t) for t in items]
    scores = []
    for i, hypothesis in enumerate(tokens):
        references = [t for j, t in enumerate(tokens) if j != i and t]
        if hypothesis and references:
            scores.append(
                float(sentence_bleu(references, hypothesis, weights=BLEU_WEIGHTS, smoothing_function=smoothing))
            )
    return scores


def _data_a_items() -> list[list[str]]:
    record = json.loads((DATA / "data" / "data_A.json").read_text(encoding="utf-8"))[0]
    scores = record[3]
    return [[item["Content"] for item in scores[step] if item.get("Content")] for step in ("Step-1", "Step-3")]


def _chinese_level_texts() -> list[list[str]]:
    rubric = json.loads((DATA / "rubric" / "cgpst-v1.json").read_text(encoding="utf-8"))
    groups = []
    for step in rubric["steps"]:
        for dim in step.get("dimensions", []):
            texts = [level["zh"] for level in dim.get("levels", []) if level.get("zh")]
            if len(texts) >= 2:
                groups.append(texts)
    return groups


def _scenario_sentences() -> list[list[str]]:
    scenarios = json.loads((DATA / "data" / "future_scenarios_en.json").read_text(encoding="utf-8"))
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", scenarios["FS10"]["text"]) if s.strip()]
    return [sentences[k : k + 8] for k in range(0, len(sentences), 8) if len(sentences[k : k + 8]) >= 2]


REAL = _data_a_items() + _chinese_level_texts() + _scenario_sentences()


def test_there_are_real_texts_in_both_languages():
    assert len(REAL) >= 6
    assert any(re.search(r"[\u4e00-\u9fff]", t) for group in REAL for t in group)
    assert all(len(group) >= 2 for group in REAL)


@pytest.mark.parametrize("items", REAL, ids=[f"real{i}" for i in range(len(REAL))])
def test_equals_nltk_on_real_texts(items):
    ours = self_bleu(items)
    assert ours == nltk_self_bleu(items)  # the same floats, not only close
    assert len(ours) == len(items) and all(0 <= s <= 1 for s in ours)


@pytest.mark.parametrize(
    "items",
    [
        ["a", "a b", "b"],  # one-token items: no bigram at all
        ["a a a a", "a a", "a"],  # clipping by the largest count among the others
        ["x y x y x y", "x y", "y x y x", "z"],  # the hypothesis holds the top count itself
        ["same words here", "same words here", "other words"],  # duplicates
        ["no overlap at all", "完全 不同 的 内容", "something else entirely"],  # zero unigram matches
        ["short", "a much longer reference sentence than the short one", "mid length one"],  # brevity
        ["海洋塑料污染威胁浮游生物", "海洋塑料回收", "浮游生物减少导致渔业衰退", "   "],
    ],
)
def test_equals_nltk_on_edge_cases(items):
    assert self_bleu(items) == nltk_self_bleu(items)

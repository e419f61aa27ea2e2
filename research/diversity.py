"""Diversity of a response's Step-1 and Step-3 items: 1 - mean Self-BLEU (pure, no ORM).

As in the paper (section 7.2): each item is scored with nltk's sentence BLEU
against the response's other items as references, jieba word tokens, weights
(0.8, 0.2), smoothing method 1; diversity = 1 - the mean over the items.
"""

from __future__ import annotations

import logging
import threading
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean

BLEU_WEIGHTS = (0.8, 0.2)
_lock = threading.Lock()
_ready = False


def _jieba():
    global _ready
    import jieba

    if not _ready:
        with _lock:
            if not _ready:
                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _ready = True
    return jieba


def tokenize(text: str) -> list[str]:
    """jieba word tokens without whitespace (Chinese words, English words, punctuation)."""
    return [tok for tok in _jieba().lcut(text) if tok.strip()]


def self_bleu(items: Sequence[str]) -> list[float]:
    """nltk's ``sentence_bleu`` of each item against all the other items as references
    (weights (0.8, 0.2), smoothing method 1), each item tokenized once."""
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    smoothing = SmoothingFunction().method1
    tokens = [tokenize(t) for t in items]
    scores = []
    for i, hypothesis in enumerate(tokens):
        references = [t for j, t in enumerate(tokens) if j != i and t]
        if hypothesis and references:
            scores.append(
                float(
                    sentence_bleu(references, hypothesis, weights=BLEU_WEIGHTS, smoothing_function=smoothing)
                )
            )
    return scores


def diversity(items: Sequence[str]) -> float | None:
    """1 - mean Self-BLEU; None for fewer than two non-empty items."""
    scores = self_bleu([t for t in items if t and t.strip()])
    return 1 - fmean(scores) if scores else None


@dataclass(frozen=True)
class DiversityMean:
    model: str
    model_number: str
    condition: str
    step: int
    value: float | None
    n: int


def diversity_means(
    records, values: dict[int, dict[int, float | None]], *, steps=(1, 3)
) -> list[DiversityMean]:
    """Mean response diversity per model, condition and step.

    ``records``: objects with response_id, model_number, model, condition;
    ``values``: each response's diversity by step (None where undefined).
    """
    groups: dict[tuple[str, str, str, int], list[float]] = defaultdict(list)
    for r in records:
        for step in steps:
            group = groups[(r.model_number, r.model, r.condition, step)]
            value = values.get(r.response_id, {}).get(step)
            if value is not None:
                group.append(value)
    return [
        DiversityMean(name, number, condition, step, fmean(v) if v else None, len(v))
        for (number, name, condition, step), v in sorted(groups.items())
    ]

"""Diversity of a response's Step-1 and Step-3 items: 1 - mean Self-BLEU (pure, no ORM).

As in the paper (section 7.2): each item is scored with nltk's sentence BLEU
against the response's other items as references, jieba word tokens, weights
(0.8, 0.2), smoothing method 1; diversity = 1 - the mean over the items. The
BLEU arithmetic is done here from n-gram counts shared by all pairs of items
(tests/test_self_bleu.py checks it equals nltk's, float for float).
"""

from __future__ import annotations

import logging
import math
import threading
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean

BLEU_WEIGHTS = (0.8, 0.2)
SMOOTHING_EPSILON = 0.1  # nltk's SmoothingFunction(epsilon=0.1).method1
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
    """BLEU of each item against all the others.

    The numbers of nltk's ``sentence_bleu(others, item, weights=(0.8, 0.2),
    smoothing_function=SmoothingFunction().method1)`` (tests compare them), computed
    from each item's n-gram counts, tokenized and counted once instead of once per
    pair of items."""
    tokens = [tokenize(t) for t in items]
    counts = [_ngram_counts(t) for t in tokens]
    present = [i for i, t in enumerate(tokens) if t]
    # per n-gram, the largest count in any item and the largest in any other item, so
    # that the clip of an item against "all the others" is one look-up
    best: list[dict[tuple, tuple[int, int, int]]] = [{} for _ in BLEU_WEIGHTS]
    for i in present:
        for n, ngrams in enumerate(counts[i]):
            table = best[n]
            for ngram, count in ngrams.items():
                top, top_item, second = table.get(ngram, (0, -1, 0))
                if count > top:
                    table[ngram] = (count, i, top)
                elif count > second:
                    table[ngram] = (top, top_item, count)
    scores = []
    for i, hypothesis in enumerate(tokens):
        others = [len(tokens[j]) for j in present if j != i]
        if not hypothesis or not others:
            continue
        clipped = []
        for n, ngrams in enumerate(counts[i]):
            table = best[n]
            matched = 0
            for ngram, count in ngrams.items():
                top, top_item, second = table[ngram]
                matched += min(count, second if top_item == i else top)
            clipped.append((matched, max(1, sum(ngrams.values()))))
        scores.append(_bleu(clipped, len(hypothesis), others))
    return scores


def _ngram_counts(tokens: list[str]) -> list[Counter]:
    return [
        Counter(tuple(tokens[k : k + n]) for k in range(len(tokens) - n + 1))
        if len(tokens) >= n
        else Counter()
        for n in range(1, len(BLEU_WEIGHTS) + 1)
    ]


def _bleu(clipped: list[tuple[int, int]], hyp_len: int, ref_lens: list[int]) -> float:
    """nltk's corpus_bleu for one hypothesis from its clipped n-gram counts, in the same
    float operations: brevity penalty from the closest reference length, smoothing
    method 1 (epsilon 0.1 for a zero count), weighted log precisions summed by fsum."""
    if clipped[0][0] == 0:
        return 0.0
    closest = min(ref_lens, key=lambda ref_len: (abs(ref_len - hyp_len), ref_len))
    bp = 1 if hyp_len > closest else math.exp(1 - closest / hyp_len)
    precisions = [(matched if matched else SMOOTHING_EPSILON) / total for matched, total in clipped]
    return float(
        bp * math.exp(math.fsum(w * math.log(p) for w, p in zip(BLEU_WEIGHTS, precisions, strict=True)))
    )


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

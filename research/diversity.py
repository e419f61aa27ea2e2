"""Diversity of a response's Step-1 and Step-3 items: 1 - mean Self-BLEU (pure, no ORM).

"As released" (the default) follows the study's analysis script step by step:

* items: the step's answer text split at newlines; a line that starts with the next
  expected number (1, then 2, ...) is an item, kept as ``line.lstrip()[2:]`` (the
  first two characters after leading whitespace dropped, so "1. text" keeps its
  leading space); every other line is skipped;
* tokens: jieba's default ``cut`` (accurate mode, HMM on), every token it yields,
  whitespace tokens included;
* each item scored with nltk's ``sentence_bleu`` against all the other items as
  references, weights (0.8, 0.2), ``SmoothingFunction().method1``; an empty item
  scores 0 and counts in the mean;
* diversity = 1 - the mean over the items.

"Cleaned tokens" is a second, labelled variant: the same items with the whitespace
tokens dropped (on English text whitespace tokens match each other, which raises
Self-BLEU a lot). Fewer than two items leave diversity undefined (None): the
release's script has no value there (it fails).
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean

BLEU_WEIGHTS = (0.8, 0.2)
RELEASED = "released"
CLEANED = "cleaned"
VARIANTS = (RELEASED, CLEANED)
VARIANT_LABELS = {RELEASED: "as released", CLEANED: "cleaned tokens (no whitespace)"}
# the steps whose items are scored, and the version of this computation: a stored value
# whose stamp was made with another version is recomputed (bump it when the method changes)
DIVERSITY_STEPS = (1, 3)
DIVERSITY_VERSION = 1
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


def release_items(text: str) -> list[str]:
    """The numbered items of a Step-1 or Step-3 answer, split as the release splits them."""
    items = []
    expected = 1
    for line in (text or "").split("\n"):
        if line.startswith(str(expected)):
            items.append(line.lstrip()[2:])
            expected += 1
    return items


def tokenize(text: str, *, variant: str = RELEASED) -> list[str]:
    """jieba's default ``cut``: every token as released, or without whitespace tokens."""
    tokens = list(_jieba().cut(text))
    if variant == CLEANED:
        return [tok for tok in tokens if tok.strip()]
    if variant != RELEASED:
        raise ValueError(f"unknown variant {variant!r}")
    return tokens


def _bleu_scores(tokens: list[list[str]]) -> list[float]:
    """nltk's ``sentence_bleu`` of each tokenized item against all the others as references."""
    if len(tokens) < 2:
        return []
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    smoothing = SmoothingFunction().method1
    return [
        float(
            sentence_bleu(
                tokens[:i] + tokens[i + 1 :], hypothesis, weights=BLEU_WEIGHTS, smoothing_function=smoothing
            )
        )
        for i, hypothesis in enumerate(tokens)
    ]


def self_bleu(items: Sequence[str], *, variant: str = RELEASED) -> list[float]:
    """nltk's ``sentence_bleu`` of each item against all the other items as references
    (weights (0.8, 0.2), smoothing method 1), each item tokenized once. Empty for fewer
    than two items."""
    return _bleu_scores([tokenize(t, variant=variant) for t in items])


def diversity(items: Sequence[str], *, variant: str = RELEASED) -> float | None:
    """1 - mean Self-BLEU of the items; None for fewer than two items."""
    scores = self_bleu(items, variant=variant)
    return 1 - fmean(scores) if scores else None


def text_diversity(text: str) -> dict[str, float | None]:
    """Both variants of one step's answer text, split into items as released (jieba runs once)."""
    released = [tokenize(item) for item in release_items(text)]
    cleaned = [[tok for tok in tokens if tok.strip()] for tokens in released]
    out: dict[str, float | None] = {}
    for variant, tokens in ((RELEASED, released), (CLEANED, cleaned)):
        scores = _bleu_scores(tokens)
        out[variant] = 1 - fmean(scores) if scores else None
    return out


StepsDiversity = dict[int, dict[str, float | None]]  # step -> variant -> value


def answers_diversity(answers: Sequence[str]) -> StepsDiversity:
    """Both variants of each of ``DIVERSITY_STEPS``, from those steps' answer texts in order."""
    return {step: text_diversity(text) for step, text in zip(DIVERSITY_STEPS, answers, strict=True)}


def answers_stamp(answers: Sequence[str]) -> str:
    """Identifies the texts (and the computation's version) a diversity value was computed from."""
    digest = hashlib.sha256(f"diversity v{DIVERSITY_VERSION}".encode())
    for text in answers:
        encoded = text.encode()
        digest.update(b"%d:" % len(encoded) + encoded)  # length-prefixed: no two lists collide
    return digest.hexdigest()


def diversity_to_json(values: StepsDiversity) -> dict[str, dict[str, float | None]]:
    """JSON object keys are strings: ``{"1": {...}, "3": {...}}``."""
    return {str(step): dict(by_variant) for step, by_variant in values.items()}


def diversity_from_json(stored: dict[str, dict[str, float | None]]) -> StepsDiversity:
    return {int(step): dict(by_variant) for step, by_variant in stored.items()}


@dataclass(frozen=True)
class DiversityMean:
    model: str
    model_number: str
    condition: str
    step: int
    value: float | None  # as released
    n: int
    cleaned: float | None = None  # the cleaned-token variant


def diversity_means(
    records, values: dict[int, dict[int, dict[str, float | None]]], *, steps=(1, 3)
) -> list[DiversityMean]:
    """Mean response diversity per model, condition and step, both variants.

    ``records``: objects with response_id, model_number, model, condition;
    ``values``: each response's diversity by step and variant (None where undefined).
    """
    groups: dict[tuple[str, str, str, int], dict[str, list[float]]] = defaultdict(
        lambda: {v: [] for v in VARIANTS}
    )
    for r in records:
        for step in steps:
            group = groups[(r.model_number, r.model, r.condition, step)]
            by_variant = values.get(r.response_id, {}).get(step, {})
            for variant in VARIANTS:
                value = by_variant.get(variant)
                if value is not None:
                    group[variant].append(value)
    return [
        DiversityMean(
            name,
            number,
            condition,
            step,
            fmean(v[RELEASED]) if v[RELEASED] else None,
            len(v[RELEASED]),
            fmean(v[CLEANED]) if v[CLEANED] else None,
        )
        for (number, name, condition, step), v in sorted(groups.items())
    ]

"""Each response's diversity (jieba + BLEU over its Step-1 and Step-3 items, both variants):
read from the rows a worker stored when the response arrived (``ResponseDiversity``).

A row counts only while its stamp matches the response's current Step-1 and Step-3 texts.
For a response without such a row (a task still queued, a database not yet backfilled,
a text edited moments ago) the value comes from Django's cache, keyed by the texts' stamp,
and is computed and cached on a miss. A selector writes no rows: storing is the task's
(``research.services.diversity``) and ``manage.py diversity_backfill``'s job.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import QuerySet

from research.diversity import (
    DIVERSITY_STEPS,
    StepsDiversity,
    answers_diversity,
    answers_stamp,
    diversity_from_json,
    diversity_to_json,
)
from studies.models import Response

__all__ = ["DIVERSITY_STEPS", "DiversityState", "diversity_states_get", "response_diversity_get"]

CACHE_SECONDS = 7 * 24 * 3600
_TEXT_FIELDS = tuple(f"step{step}" for step in DIVERSITY_STEPS)


@dataclass(frozen=True)
class DiversityState:
    """A response's texts for diversity, their stamp, and its stored values (None when
    there is no row or the row was computed from other texts)."""

    response_id: int
    answers: tuple[str, ...]
    stamp: str
    stored: StepsDiversity | None


def diversity_states_get(*, responses: QuerySet[Response]) -> Iterator[DiversityState]:
    """One query (the responses joined to their stored rows), streamed."""
    rows = responses.order_by("pk").values_list("pk", *_TEXT_FIELDS, "diversity__stamp", "diversity__values")
    for pk, *answers, stamp, values in rows.iterator(chunk_size=500):
        current = answers_stamp(answers)
        stored = diversity_from_json(values) if values is not None and stamp == current else None
        yield DiversityState(pk, tuple(answers), current, stored)


def _cache_key(stamp: str) -> str:
    return f"diversity:v3:{stamp}"  # the stamp covers the texts and the computation's version


def response_diversity_get(*, response_ids: list[int]) -> dict[int, StepsDiversity]:
    """Diversity of Step 1 and Step 3 per response and variant: the stored rows, else the
    cache, else computed now (and cached)."""
    out: dict[int, StepsDiversity] = {}
    unstored: list[DiversityState] = []
    for state in diversity_states_get(responses=Response.objects.filter(pk__in=response_ids)):
        if state.stored is not None:
            out[state.response_id] = state.stored
        else:
            unstored.append(state)
    if not unstored:
        return out
    found = cache.get_many([_cache_key(state.stamp) for state in unstored])
    fresh = {}
    for state in unstored:
        key = _cache_key(state.stamp)
        if key in found:
            out[state.response_id] = diversity_from_json(found[key])
        else:
            out[state.response_id] = answers_diversity(state.answers)
            fresh[key] = diversity_to_json(out[state.response_id])
    if fresh:
        cache.set_many(fresh, timeout=CACHE_SECONDS)
    return out

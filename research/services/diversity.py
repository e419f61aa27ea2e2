"""Storing each response's diversity (``ResponseDiversity``), computed once from its texts.

A worker runs :func:`response_diversity_compute` when a response arrives or its Step-1 or
Step-3 text changes (``research.receivers`` dispatches it through the outbox);
:func:`responses_diversity_backfill` fills the rows a database made before them lacks.
Both recompute only a row that is missing or whose stamp no longer matches the texts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone

from research.diversity import answers_diversity, diversity_to_json
from research.models import ResponseDiversity
from research.selectors.diversity import DiversityState, diversity_states_get
from studies.models import Response

DIVERSITY_TASK = "research.tasks.response_diversity_compute_task"  # sent by name: services never import tasks
BACKFILL_BATCH = 100


def _store(states: Iterable[DiversityState]) -> int:
    """Compute the rows of these responses (no transaction open meanwhile), then upsert them."""
    now = timezone.now()
    rows = [
        ResponseDiversity(
            response_id=state.response_id,
            values=diversity_to_json(answers_diversity(state.answers)),
            stamp=state.stamp,
            computed_at=now,
        )
        for state in states
    ]
    return _upsert(rows)


def _upsert(rows: list[ResponseDiversity]) -> int:
    """One statement; two workers storing the same response at once: the later write wins, both
    are right. A response deleted meanwhile is left out (its foreign key fails at the commit)."""
    if not rows:
        return 0
    try:
        with transaction.atomic():
            ResponseDiversity.objects.bulk_create(
                rows,
                update_conflicts=True,
                unique_fields=["response"],
                update_fields=["values", "stamp", "computed_at"],
            )
    except IntegrityError:
        ids = [row.response_id for row in rows]
        present = set(Response.objects.filter(pk__in=ids).values_list("pk", flat=True))
        if len(present) == len(rows):
            raise
        return _upsert([row for row in rows if row.response_id in present])
    return len(rows)


def response_diversity_compute(*, response_id: int) -> bool:
    """Store the response's diversity unless a row for its current texts exists. Idempotent:
    True when it computed, False when the row was current or the response is gone."""
    states = diversity_states_get(responses=Response.objects.filter(pk=response_id))
    return _store(state for state in states if state.stored is None) > 0


@dataclass
class BackfillReport:
    checked: int = 0
    computed: int = 0


def responses_diversity_backfill(
    *, study_id: int | None = None, progress: Callable[[BackfillReport], None] | None = None
) -> BackfillReport:
    """Compute the missing and stale rows of every response (of one study), in batches:
    each batch is stored as it is done, so an interrupted backfill keeps its work."""
    responses = Response.objects.all() if study_id is None else Response.objects.filter(study_id=study_id)
    report = BackfillReport()
    batch: list[DiversityState] = []

    def flush() -> None:
        report.computed += _store(batch)
        batch.clear()
        if progress is not None:
            progress(report)

    for state in diversity_states_get(responses=responses):
        report.checked += 1
        if state.stored is None:
            batch.append(state)
            if len(batch) >= BACKFILL_BATCH:
                flush()
    flush()
    return report

"""The data version of a study's research output: a short hash that changes whenever
anything the results page, its figures or the results workbook show has changed.

Cached results and figures are keyed by it, so nothing needs to be invalidated: a change
makes a new key and the old entries expire. It is read from aggregates (row counts, the
newest change, counts per status of each table the output reads) in one query of
correlated subqueries, plus one for the names, instead of from the rows themselves:

- the study's settings (threshold, headline ICC, final-score rule, rubric version);
- final scores (a recompute writes ``computed_at`` on every changed row);
- responses: count, withdrawn count (withdrawing saves only the status, not
  ``updated_at``), newest change (texts, blank items);
- submitted sheets whose assignment is active: count and newest change (raters' blanks;
  a reopened sheet or an archived assignment lowers the count);
- agreement rows (Table 6): count and newest ``computed_at``;
- generation runs and turns (the cost tables): counts, statuses, newest start and end;
- the names of conditions and models (labels).
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.db.models import Case, CharField, F, Func, OuterRef, Q, QuerySet, Subquery, Value, When
from django.db.models.functions import Cast, Concat

from calibration.models import FinalScore, GroupAgreement, ResponseAgreement
from generation.models import GenerationRun, RunStatus, Turn
from scoring.models import ScoreSheet, SheetStatus
from studies.models import Condition, ModelEndpoint, Response, ResponseStatus, Study


def _count(where: Q | None = None) -> Func:
    """COUNT(*), or the number of rows matching ``where``."""
    if where is None:
        return Func(F("id"), function="COUNT")
    return Func(Case(When(where, then=Value(1)), default=Value(0)), function="SUM")


def _newest(field: str) -> Func:
    return Func(F(field), function="MAX")


def _summary(rows: QuerySet[Any], *aggregates: Func) -> Subquery:
    """The ``aggregates`` over ``rows`` as one scalar subquery (one scan of the table), as
    text. ``Func`` instead of Django's aggregates: the ORM then adds no GROUP BY, and the
    subquery yields one row."""
    parts: list[Cast | Value] = []
    for aggregate in aggregates:
        parts += [Cast(aggregate, CharField()), Value("|")]
    text = Concat(*parts, output_field=CharField())
    return Subquery(rows.order_by().annotate(summary=text).values("summary")[:1])


def research_data_version(*, study: Study) -> str:
    """Changes whenever something the study's research output shows changes (module docstring)."""
    here = OuterRef("pk")
    active_sheets = ScoreSheet.objects.filter(
        assignment__response__study=here, status=SheetStatus.SUBMITTED, assignment__archived_at__isnull=True
    )
    runs = [_count(Q(status=status)) for status in RunStatus.values]
    summaries = {
        "finals": _summary(FinalScore.objects.filter(response__study=here), _count(), _newest("computed_at")),
        # withdrawing saves only the status, not updated_at
        "responses": _summary(
            Response.objects.filter(study=here),
            _count(),
            _count(Q(status=ResponseStatus.WITHDRAWN)),
            _newest("updated_at"),
        ),
        "sheets": _summary(active_sheets, _count(), _newest("updated_at")),
        "pairs": _summary(
            ResponseAgreement.objects.filter(response__study=here), _count(), _newest("computed_at")
        ),
        "groups": _summary(GroupAgreement.objects.filter(study=here), _count(), _newest("computed_at")),
        "runs": _summary(
            GenerationRun.objects.filter(study=here), *runs, _newest("started_at"), _newest("finished_at")
        ),
        "turns": _summary(Turn.objects.filter(run__study=here), _count(), _newest("id")),
    }
    row = Study.objects.filter(pk=study.pk).values(
        "rubric_version",
        "agreement_threshold",
        "headline_icc",
        "final_score_rule",
        **{f"summary_{name}": summary for name, summary in summaries.items()},
    )
    names = (
        Condition.objects.order_by()
        .values_list("letter", "name")
        .union(ModelEndpoint.objects.order_by().values_list("model_number", "name"), all=True)
    )
    values = row.first()
    state = [study.pk, sorted(values.items()) if values else None, sorted(names)]
    return hashlib.sha256(repr(state).encode()).hexdigest()[:32]

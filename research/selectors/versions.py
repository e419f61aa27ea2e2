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

from django.db.models import F, Func, OuterRef, QuerySet, Subquery

from calibration.models import FinalScore, GroupAgreement, ResponseAgreement
from generation.models import GenerationRun, RunStatus, Turn
from scoring.models import ScoreSheet, SheetStatus
from studies.models import Condition, ModelEndpoint, Response, ResponseStatus, Study


def _aggregate(rows: QuerySet, function: str, field: str = "id") -> Subquery:
    """``function(field)`` over ``rows`` as a scalar subquery. ``Func`` instead of Django's
    aggregates: the ORM then adds no GROUP BY, and the subquery yields one row."""
    return Subquery(rows.order_by().annotate(value=Func(F(field), function=function)).values("value")[:1])


def _count_and_newest(rows: QuerySet, field: str) -> tuple[Subquery, Subquery]:
    return _aggregate(rows, "COUNT"), _aggregate(rows, "MAX", field)


def research_data_version(*, study: Study) -> str:
    """Changes whenever something the study's research output shows changes (module docstring)."""
    here = OuterRef("pk")
    submitted = ScoreSheet.objects.filter(assignment__response__study=here, status=SheetStatus.SUBMITTED)
    runs = GenerationRun.objects.filter(study=here)
    parts = {
        "finals": _count_and_newest(FinalScore.objects.filter(response__study=here), "computed_at"),
        "responses": _count_and_newest(Response.objects.filter(study=here), "updated_at"),
        # withdrawing saves only the status
        "withdrawn": _aggregate(
            Response.objects.filter(study=here, status=ResponseStatus.WITHDRAWN), "COUNT"
        ),
        "sheets": _count_and_newest(submitted, "updated_at"),
        "active_sheets": _aggregate(submitted.filter(assignment__archived_at__isnull=True), "COUNT"),
        "pairs": _count_and_newest(ResponseAgreement.objects.filter(response__study=here), "computed_at"),
        "groups": _count_and_newest(GroupAgreement.objects.filter(study=here), "computed_at"),
        "runs": (_aggregate(runs, "MAX", "started_at"), _aggregate(runs, "MAX", "finished_at")),
        "turns": _count_and_newest(Turn.objects.filter(run__study=here), "id"),
    }
    for status in RunStatus.values:
        parts[f"runs_{status}"] = _aggregate(runs.filter(status=status), "COUNT")
    expressions = {}
    for name, value in parts.items():
        for i, expression in enumerate(value if isinstance(value, tuple) else (value,)):
            expressions[f"{name}_{i}"] = expression
    row = Study.objects.filter(pk=study.pk).values(
        "rubric_version", "agreement_threshold", "headline_icc", "final_score_rule", **expressions
    )
    names = Condition.objects.values_list("letter", "name").union(
        ModelEndpoint.objects.values_list("model_number", "name"), all=True
    )
    values = row.first()
    state = [study.pk, sorted(values.items()) if values else None, sorted(names)]
    return hashlib.sha256(repr(state).encode()).hexdigest()[:32]

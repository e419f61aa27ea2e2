"""A study's responses for its admins: one row per response with its assignment, agreement
and final score, filtered by what the list page asks for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q, QuerySet

from calibration.models import ResponseAgreement
from scoring.models import AssignmentRole, EventKind, SheetEvent, SheetStatus
from studies.models import AuditEvent, Response, Study
from studies.review import review_event_text

# The assignment and agreement filters' values.
ASSIGNED, UNASSIGNED = "assigned", "unassigned"
AGREED, BELOW, NOT_YET = "agreed", "below", "none"

_LIVE_PRIMARY = Q(assignments__archived_at__isnull=True, assignments__role=AssignmentRole.PRIMARY)


@dataclass(frozen=True)
class ResponseFilters:
    scenario_id: int | None = None
    condition_id: int | None = None
    model_id: int | None = None
    status: str = ""
    assignment: str = ""
    agreement: str = ""


def study_responses_list(*, study: Study, filters: ResponseFilters) -> QuerySet[Response]:
    """The study's responses, each with ``n_primary`` (live primary assignments) and
    ``n_submitted`` (their submitted sheets); its agreement and final score come along, and a
    pairwise unit's two source responses."""
    rows = (
        Response.objects.filter(study=study)
        .select_related(
            "scenario", "model", "condition", "agreement", "final_score", "pair__left", "pair__right"
        )
        .annotate(
            n_primary=Count("assignments", filter=_LIVE_PRIMARY, distinct=True),
            n_submitted=Count(
                "assignments",
                filter=_LIVE_PRIMARY & Q(assignments__sheet__status=SheetStatus.SUBMITTED),
                distinct=True,
            ),
        )
        .order_by("scenario__code", "condition__letter", "model__model_number", "research_id")
    )
    if filters.scenario_id:
        rows = rows.filter(scenario_id=filters.scenario_id)
    if filters.condition_id:
        rows = rows.filter(condition_id=filters.condition_id)
    if filters.model_id:
        rows = rows.filter(model_id=filters.model_id)
    if filters.status:
        rows = rows.filter(status=filters.status)
    if filters.assignment == ASSIGNED:
        rows = rows.filter(n_primary__gt=0)
    elif filters.assignment == UNASSIGNED:
        rows = rows.filter(n_primary=0)
    with_pcc = ResponseAgreement.objects.filter(pcc__isnull=False).values("response_id")
    if filters.agreement == AGREED:
        rows = rows.filter(pk__in=with_pcc, agreement__flagged=False)
    elif filters.agreement == BELOW:
        rows = rows.filter(agreement__flagged=True)
    elif filters.agreement == NOT_YET:
        rows = rows.exclude(pk__in=with_pcc)
    return rows


def response_history(*, response: Response) -> list[dict[str, Any]]:
    """What happened to a response, newest first: its sheets' creation, submits, reopens,
    corrections and archiving (the sheets' own trail, without each entry's change) and
    the audit events naming it."""
    events = [
        {
            "at": e.at,
            "actor": e.actor,
            "what": e.get_kind_display(),
            "detail": e.note or _paths(e.changes),
            "who": e.sheet.assignment.rater,
        }  # fmt: skip
        for e in SheetEvent.objects.filter(sheet__assignment__response=response)
        .exclude(kind=EventKind.CHANGE)
        .select_related("actor", "sheet__assignment__rater")
        .order_by("-at")[:200]
    ]
    target = f"{Response._meta.label_lower}:{response.pk}"
    task = response.study.task_kind
    events += [
        {
            "at": e.at,
            "actor": e.actor,
            "what": e.action,
            # the review gate's events say why in the reader's language (held, redacted)
            "detail": review_event_text(action=e.action, changes=e.changes, task=task) or e.reason,
            "who": None,
        }
        for e in AuditEvent.objects.filter(target=target).select_related("actor")[:200]
    ]
    return sorted(events, key=lambda e: e["at"], reverse=True)


def _paths(changes: list[dict[str, Any]], shown: int = 3) -> str:
    """The entries an event changed, the first few of them."""
    paths = [str(change.get("path", "")) for change in changes or []]
    more = f" (+{len(paths) - shown})" if len(paths) > shown else ""
    return ", ".join(paths[:shown]) + more

"""The workload board (for admins: it names raters): per rater, their active assignments by state;
per scenario group, its pair and progress, filtered and a page at a time. Counted by the database,
so that a study of 12,000 sheets costs a few grouped queries, not a row per sheet."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Count, Q, QuerySet

from scoring.models import Assignment, AssignmentRole, ScoringGroup, SheetStatus
from studies.models import Condition, Response, ResponseStatus, Study

GROUPS_PER_PAGE = 50
OPEN, DONE = "open", "done"  # a group with sheets still to submit; one whose sheets are all in

_SUBMITTED = Q(sheet__status=SheetStatus.SUBMITTED)
_DRAFT = Q(sheet__status=SheetStatus.DRAFT, sheet__version__gt=0)


@dataclass(frozen=True)
class WorkloadFilters:
    """Which scenario groups (and raters) the board shows: a scenario code or a rater's username
    containing the text given, a condition, groups still open or done. Unset: any."""

    scenario: str = ""
    condition: Condition | None = None
    rater: str = ""
    state: str = ""


@dataclass
class WorkloadBoard:
    raters: list[dict[str, Any]]
    groups: list[dict[str, Any]]  # the page's groups
    page: Page[Any] = field(repr=False)


def _active_assignments(study: Study | None) -> QuerySet[Assignment]:
    assignments = Assignment.objects.filter(archived_at__isnull=True).exclude(role=AssignmentRole.TRAINING)
    return assignments.filter(response__study=study) if study is not None else assignments


def _rater_rows(assignments: QuerySet[Assignment], rater: str) -> list[dict[str, Any]]:
    if rater:
        assignments = assignments.filter(rater__username__icontains=rater)
    rows = assignments.values(
        "rater_id", "rater__username", "rater__rater_profile__rater_code", "rater__is_active"
    ).annotate(
        assigned=Count("id"),
        submitted=Count("id", filter=_SUBMITTED),
        draft=Count("id", filter=_DRAFT),
        calibration=Count("id", filter=Q(role=AssignmentRole.CALIBRATION)),
    )
    raters = []
    for row in rows:
        raters.append(
            {
                "username": row["rater__username"],
                "code": row["rater__rater_profile__rater_code"] or "",
                # a deactivated rater's open sheets wait for nobody: the admin reassigns them
                "active": row["rater__is_active"],
                "assigned": row["assigned"],
                "not_started": row["assigned"] - row["submitted"] - row["draft"],
                "draft": row["draft"],
                "submitted": row["submitted"],
                "calibration": row["calibration"],
                "percent": round(100 * row["submitted"] / row["assigned"]) if row["assigned"] else 0,
            }
        )
    return sorted(raters, key=lambda r: (r["code"] or "~", r["username"]))


def _groups(study: Study | None, filters: WorkloadFilters) -> QuerySet[ScoringGroup]:
    groups = ScoringGroup.objects.filter(archived_at__isnull=True)
    if study is not None:
        groups = groups.filter(study=study)
    if filters.scenario:
        groups = groups.filter(scenario__code__icontains=filters.scenario)
    if filters.condition is not None:
        groups = groups.filter(condition=filters.condition)
    if filters.rater:
        groups = groups.filter(
            Q(rater_a__username__icontains=filters.rater) | Q(rater_b__username__icontains=filters.rater)
        )
    if filters.state in (OPEN, DONE):
        still_open = ScoringGroup.objects.filter(
            assignments__archived_at__isnull=True, assignments__role=AssignmentRole.PRIMARY
        ).exclude(assignments__sheet__status=SheetStatus.SUBMITTED)
        opened = Q(pk__in=still_open.values("pk"))
        groups = groups.filter(opened) if filters.state == OPEN else groups.exclude(opened)
    return groups.select_related("scenario", "condition", "rater_a", "rater_b", "study").order_by(
        "study__name", "scenario__code", "condition__letter", "pk"
    )


def workload_board(
    *, study: Study | None = None, filters: WorkloadFilters | None = None, page: str | None = None
) -> WorkloadBoard:
    """The board's raters (those ``filters.rater`` names) and one page of its scenario groups."""
    filters = filters or WorkloadFilters()
    assignments = _active_assignments(study)
    shown = Paginator(_groups(study, filters), GROUPS_PER_PAGE).get_page(page)
    groups = list(shown.object_list)
    counts = {
        row["group_id"]: row
        for row in assignments.filter(group_id__in=[g.pk for g in groups])
        .values("group_id")
        .annotate(
            total=Count("id"), submitted=Count("id", filter=_SUBMITTED), draft=Count("id", filter=_DRAFT)
        )
    }
    responses = {
        (row["study_id"], row["scenario_id"], row["condition_id"]): row["n"]
        for row in Response.objects.filter(
            study_id__in={g.study_id for g in groups},
            scenario_id__in={g.scenario_id for g in groups},
            is_training_copy=False,
        )
        .exclude(status=ResponseStatus.WITHDRAWN)
        .values("study_id", "scenario_id", "condition_id")
        .annotate(n=Count("id"))
    }
    rows = []
    for group in groups:
        count = counts.get(group.pk, {"total": 0, "submitted": 0, "draft": 0})
        n_responses = responses.get((group.study_id, group.scenario_id, group.condition_id), 0)
        # two sheets per response of the group: one without its pair's assignments is not done
        expected = max(count["total"], 2 * n_responses)
        rows.append(
            {
                "group": group,
                "n_responses": n_responses,
                "assigned": count["total"],
                "expected": expected,
                "unassigned": expected - count["total"],
                "submitted": count["submitted"],
                "draft": count["draft"],
                "not_started": count["total"] - count["submitted"] - count["draft"],
                "percent": round(100 * count["submitted"] / expected) if expected else 0,
            }
        )
    return WorkloadBoard(raters=_rater_rows(assignments, filters.rater), groups=rows, page=shown)

"""Reads of the scoring domain (no writes here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from django.db.models import Avg, BooleanField, Case, Exists, OuterRef, Q, QuerySet, Value, When
from django.shortcuts import get_object_or_404

from scoring.models import (
    Assignment,
    AssignmentRole,
    DimensionScore,
    EventKind,
    ItemScore,
    ResponseFlag,
    ScoreSheet,
    ScoringGroup,
    SheetEvent,
    SheetLevel,
    SheetStatus,
)
from studies.models import Response, ResponseItem
from studies.rubric import CriterionEntry, IdeaEntry, Rubric, SheetEntries, load_rubric

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def sheet_rubric(sheet: ScoreSheet) -> Rubric:
    return load_rubric(sheet.rubric_version)


def sheet_entries_get(*, sheet: ScoreSheet, rubric: Rubric | None = None) -> SheetEntries:
    """The raw entries of a sheet as plain dataclasses."""
    return sheets_entries_get(sheets=[sheet], rubric=rubric)[sheet.pk]


_ITEM_SCORE_FIELDS = (
    "step", "position", "category", "invalid_type", "elaboration", "originality", "correctly_written",
    "relevance", "other_scores", "comment",
)  # fmt: skip


def _entries_empty(sheet: ScoreSheet, rubric: Rubric) -> SheetEntries:
    entries = SheetEntries.empty(rubric)
    entries.dimension_level = sheet.level == SheetLevel.DIMENSIONS
    for key in dict.fromkeys(
        [*ScoreSheet.TEXT_FIELDS, *(t.key for step in rubric.steps for t in step.texts)]
    ):
        entries.texts[key] = sheet.copied_text(key)
    entries.comments = {int(k): v for k, v in (sheet.comments or {}).items()}
    return entries


def _entries_put_item(entries: SheetEntries, rubric: Rubric, row: Mapping[str, Any]) -> None:
    """One ItemScore row, its columns by name (``_ITEM_SCORE_FIELDS``), into the entries."""
    step = rubric.step(row["step"])
    position = row["position"]
    if step.kind == "ideas" and position <= step.item_count:
        entries.ideas[step.number][position - 1] = IdeaEntry(
            category=row["category"],
            invalid=row["invalid_type"],
            elaboration=row["elaboration"],
            originality=row["originality"],
            comment=row["comment"],
            other_scores=dict(row.get("other_scores") or {}),  # a copy of rows from before it has none
        )
    elif step.kind == "criteria" and position <= step.item_count:
        entries.criteria[position - 1] = CriterionEntry(
            correctly_written=row["correctly_written"],
            relevance=row["relevance"],
            comment=row["comment"],
            other_scores=dict(row.get("other_scores") or {}),  # a copy of rows from before it has none
        )


def sheets_entries_get(*, sheets: list[ScoreSheet], rubric: Rubric | None = None) -> dict[int, SheetEntries]:
    """The raw entries of many sheets by sheet id: from each sheet's copy of its rows, or,
    for sheets without one, two queries for all of them (item rows, dimension rows).
    ``rubric``: the sheets' rubric when they all share one, else each sheet's own."""
    out: dict[int, SheetEntries] = {}
    rubrics: dict[int, Rubric] = {}
    for sheet in sheets:
        rubrics[sheet.pk] = rubric or sheet_rubric(sheet)
        out[sheet.pk] = _entries_empty(sheet, rubrics[sheet.pk])
    if not out:
        return out
    for sheet in sheets:  # the rows' copy on the sheet, when it has one
        if sheet.entry_rows is not None:
            for row in sheet.entry_rows["items"]:
                _entries_put_item(out[sheet.pk], rubrics[sheet.pk], row)
            out[sheet.pk].dimensions.update(sheet.entry_rows["dims"])
    ids = [sheet.pk for sheet in sheets if sheet.entry_rows is None]
    if not ids:
        return out
    # the Meta orderings are not needed here: the rows go to their places by key
    items = ItemScore.objects.filter(sheet_id__in=ids).order_by().values("sheet_id", *_ITEM_SCORE_FIELDS)
    for row in items:
        _entries_put_item(out[row["sheet_id"]], rubrics[row["sheet_id"]], row)
    dims = (
        DimensionScore.objects.filter(sheet_id__in=ids)
        .order_by()
        .values_list("sheet_id", "dimension", "value")
    )
    for sheet_id, key, value in dims:
        out[sheet_id].dimensions[key] = value
    return out


def group_active_get(*, study_id: int, scenario_id: int, condition_id: int) -> ScoringGroup | None:
    """The active scoring group of a scenario under a condition in a study, or None (at most
    one is active: ``one_active_pair_per_group``)."""
    return (
        ScoringGroup.objects.filter(
            study_id=study_id, scenario_id=scenario_id, condition_id=condition_id, archived_at__isnull=True
        )
        .select_related("rater_a", "rater_b")  # the pair is what callers want of it
        .first()
    )


def response_group_get(*, response: Response) -> ScoringGroup | None:
    """The active scoring group of the response's scenario and condition, or None."""
    return group_active_get(
        study_id=response.study_id, scenario_id=response.scenario_id, condition_id=response.condition_id
    )


def rater_queue(*, user: User, language: str = "en") -> list[dict[str, Any]]:
    """The rater's active assignments in their own random order, with only
    blind-safe fields: blind code, scenario theme (in the rater's UI language
    when the study has that version) and sheet status."""
    rows = (
        Assignment.rater_work.filter(rater=user, archived_at__isnull=True)
        .annotate(reopened=Exists(SheetEvent.objects.filter(sheet=OuterRef("sheet"), kind=EventKind.REOPEN)))
        .exclude(role=AssignmentRole.TRAINING)  # training has its own page
        .exclude(response__held=True)  # the review gate: never shown before its release
        .order_by("order_key", "id")
        .values_list(
            "blind_code",
            "response__scenario__theme",
            "response__scenario__theme_zh",
            "role",
            "sheet__status",
            "sheet__version",
            "sheet__overall",
            "reopened",
        )  # fmt: skip
    )
    queue = []
    chinese = language.startswith("zh")
    for code, theme, theme_zh, role, sheet_status, version, overall, reopened in rows:
        status = _status_of(sheet_status, version)
        if status == SheetStatus.DRAFT and reopened:
            status = "reopened"
        queue.append(
            {
                "blind_code": code,
                "theme": theme_zh if chinese and theme_zh else theme,
                # a test-retest probe looks like any new response: its role is never shown
                "role": AssignmentRole.PRIMARY.value if role == AssignmentRole.RETEST else role,
                "status": status,
                "overall": overall if status != "not_started" else None,
            }
        )
    return queue


def rater_pace_seconds(*, user: User) -> float | None:
    """The rater's own pace: mean active time of their submitted sheets that have one."""
    pace: float | None = ScoreSheet.objects.filter(
        assignment__rater=user, status=SheetStatus.SUBMITTED, active_seconds__gt=0
    ).aggregate(pace=Avg("active_seconds"))["pace"]
    return pace


def rater_queue_left(*, user: User, queue: list[dict[str, Any]], after: str = "") -> dict[str, Any]:
    """What is left in the rater's queue: how many, the next one (after ``after`` in the
    rater's order, wrapping round) and an estimate in minutes from the rater's own pace."""
    open_codes = [item["blind_code"] for item in queue if item["status"] != SheetStatus.SUBMITTED]
    codes = [item["blind_code"] for item in queue]
    start = codes.index(after) + 1 if after in codes else 0
    ordered = codes[start:] + codes[:start]
    following = [c for c in ordered if c in set(open_codes) and c != after]
    pace = rater_pace_seconds(user=user) if open_codes else None
    return {
        "left": len(open_codes),
        "next": following[0] if following else None,
        "minutes": max(1, round(len(open_codes) * pace / 60)) if pace else None,
    }


def rater_assignment_get(*, user: User, blind_code: str, training: bool = False) -> Assignment:
    """The rater's own active assignment for a blind code; Http404 for anything else
    (someone else's response, an archived assignment, an unknown code). Live and
    training assignments are kept apart: ``training`` picks which."""
    # whether the rater flagged this response, in the same query (the page then lists the flags);
    # never on a test-retest probe, which would then show the rater their earlier flag
    flagged = Case(
        When(role=AssignmentRole.RETEST, then=Value(False)),
        default=Exists(ResponseFlag.objects.filter(response=OuterRef("response"), rater=user)),
        output_field=BooleanField(),
    )
    return get_object_or_404(
        _rater_assignments(user=user, blind_code=blind_code, training=training)
        .select_related("response__scenario", "response__study", "sheet")
        .annotate(flagged_by_rater=flagged)
    )


def rater_assignment_for_write(*, user: User, blind_code: str) -> Assignment:
    """The rater's own active live assignment for a blind code as an autosave or a submit
    needs it: the row with its sheet, none of the texts the page shows (the response's six
    steps and the scenario's texts: read on every autosave, they cost about a fifth of it);
    Http404 as ``rater_assignment_get``."""
    return get_object_or_404(_rater_assignments(user=user, blind_code=blind_code).select_related("sheet"))


def _rater_assignments(*, user: User, blind_code: str, training: bool = False) -> QuerySet[Assignment]:
    return Assignment.rater_work.filter(
        Q(role=AssignmentRole.TRAINING) if training else ~Q(role=AssignmentRole.TRAINING),
        rater=user,
        blind_code=blind_code,
        archived_at__isnull=True,
    )


def rater_has_training_code(*, user: User, blind_code: str) -> bool:
    """Whether the code is one of the rater's own training responses (the live page
    then says where to score it instead of a bare 404)."""
    return Assignment.objects.filter(rater=user, blind_code=blind_code, role=AssignmentRole.TRAINING).exists()


def response_items_by_step(*, response: Response) -> dict[int, dict[int, str]]:
    items: dict[int, dict[int, str]] = {1: {}, 3: {}, 4: {}}
    for step, position, text in ResponseItem.objects.filter(response=response).values_list(
        "step", "position", "text"
    ):
        items.setdefault(step, {})[position] = text
    return items


def sheet_reopen_notice(*, sheet: ScoreSheet) -> dict[str, Any] | None:
    """Why a draft is open again: who reopened it (an administrator), when and why.
    None for a sheet that was never reopened or is submitted again."""
    if sheet.is_submitted or not sheet.version:
        return None
    event = (
        SheetEvent.objects.filter(sheet=sheet, kind__in=[EventKind.REOPEN, EventKind.SUBMIT])
        .select_related("actor")
        .order_by("-id")
        .first()
    )
    if event is None or event.kind != EventKind.REOPEN:
        return None
    return {"by": event.actor.get_username() if event.actor else "", "at": event.at, "reason": event.note}


def group_detail(*, group: ScoringGroup) -> list[dict[str, Any]]:
    """The group's responses with each active or archived assignment and sheet (admins). An
    archived group's page is the history of its pair: it leaves out the assignments of the pairs
    that came after it (hostile pass 25), keeping its own and its raters'."""
    responses = list(
        Response.objects.filter(
            study=group.study, scenario=group.scenario, condition=group.condition, is_training_copy=False
        )
        .order_by("research_id")
        .only("id", "research_id", "blind_code", "status")
    )
    by_response: dict[int, list[Assignment]] = {r.pk: [] for r in responses}
    assignments = Assignment.objects.filter(response__in=responses)
    if group.archived_at is not None:
        assignments = assignments.filter(
            Q(group=group) | Q(rater_id__in=[group.rater_a_id, group.rater_b_id])
        )
    for a in assignments.select_related("rater", "sheet").order_by("archived_at", "rater__username"):
        by_response[a.response_id].append(a)
    return [{"response": r, "assignments": by_response[r.pk]} for r in responses]


def _status_of(sheet_status: str | None, version: int | None) -> str:
    if sheet_status is None or (sheet_status == SheetStatus.DRAFT and not version):
        return "not_started"
    return sheet_status

"""Progress and cost of judge batches, and the judges' sheets (for the comparison)."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import QuerySet

from generation.selectors import BatchProgress, EngineFigures, engine_batch_progress, engine_figures
from judging.models import Judge, JudgeBatch, JudgeCall, JudgeTask, JudgeTaskStatus
from scoring.models import AssignmentRole, ScoreSheet, SheetStatus


def batch_progress_get(*, batch: JudgeBatch) -> BatchProgress:
    """The batch's tasks by status and its cost: provider calls, tokens, time in calls,
    time workers spent, wall time (the engine's progress, as for generation batches)."""
    return engine_batch_progress(
        batch=batch,
        jobs=batch.tasks.select_related("response"),
        calls=JudgeCall.objects.filter(task__batch=batch),
        kind="judge",
    )


def batch_failed_tasks(*, batch: JudgeBatch) -> QuerySet[JudgeTask]:
    """Failed tasks with their response and calls (the raw output is on the calls)."""
    return (
        batch.tasks.filter(status=JudgeTaskStatus.FAILED)
        .select_related("response")
        .prefetch_related("calls")
        .order_by("id")
    )


def judge_sheets(*, study_id: int | None = None, judge: Judge | None = None) -> QuerySet[ScoreSheet]:
    """Submitted sheets of LLM judges on active judge assignments: the comparison's input.
    (The default ScoreSheet manager never returns these.)"""
    qs = ScoreSheet.all_objects.filter(
        assignment__role=AssignmentRole.JUDGE,
        assignment__archived_at__isnull=True,
        status=SheetStatus.SUBMITTED,
    ).select_related("assignment__response", "assignment__rater__judge")
    if study_id is not None:
        qs = qs.filter(assignment__response__study_id=study_id)
    if judge is not None:
        qs = qs.filter(assignment__rater=judge.user)
    return qs


def judge_figures() -> EngineFigures:
    """Judge tasks and their calls, for the metrics endpoint (every stored judge call
    answered: one that failed after its retries fails its task and is not stored)."""
    to_endpoint = "batch__judge__endpoint__name"
    tasks, calls = JudgeTask.objects.all(), JudgeCall.objects.all()
    return engine_figures(
        kind="judge", jobs=tasks, calls=calls, endpoint=to_endpoint, call_endpoint=f"task__{to_endpoint}"
    )


JUDGE_BATCHES_PER_PAGE = 50


def judge_batches_listed(*, filters: dict[str, Any], page: str | None = None) -> Page[JudgeBatch]:
    """One page of the judge batches, newest first: of a study, of a judge, in a status."""
    rows = JudgeBatch.objects.select_related("judge", "study", "scenario")
    for key in ("study", "judge", "status"):
        if filters.get(key):
            rows = rows.filter(**{key: filters[key]})
    return Paginator(rows.order_by("-created_at", "-pk"), JUDGE_BATCHES_PER_PAGE).get_page(page)

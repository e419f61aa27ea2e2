"""Progress and cost of judge batches, and the judges' sheets (for the comparison)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Count, Q, QuerySet, Sum
from django.utils import timezone

from judging.models import Judge, JudgeBatch, JudgeBatchStatus, JudgeCall, JudgeTask, JudgeTaskStatus
from scoring.models import AssignmentRole, ScoreSheet, SheetStatus


@dataclass(frozen=True)
class BatchProgress:
    total: int
    queued: int
    running: int
    succeeded: int
    failed: int
    cancelled: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    call_seconds: float
    wall: timedelta

    @property
    def done(self) -> int:
        return self.succeeded + self.failed + self.cancelled

    @property
    def percent(self) -> int:
        return round(100 * self.done / self.total) if self.total else 100

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def batch_progress_get(*, batch: JudgeBatch) -> BatchProgress:
    """Task counts by status, and the cost: provider calls, tokens, time in calls, wall time."""
    counts = batch.tasks.aggregate(
        total=Count("id"),
        **{s.value: Count("id", filter=Q(status=s.value)) for s in JudgeTaskStatus},
    )
    cost = JudgeCall.objects.filter(task__batch=batch).aggregate(
        calls=Count("id"),
        prompt=Sum("prompt_tokens"),
        completion=Sum("completion_tokens"),
        latency=Sum("latency_ms"),
    )
    end = batch.finished_at or timezone.now()
    return BatchProgress(
        total=counts["total"],
        queued=counts["queued"],
        running=counts["running"],
        succeeded=counts["succeeded"],
        failed=counts["failed"],
        cancelled=counts["cancelled"],
        calls=cost["calls"],
        prompt_tokens=cost["prompt"] or 0,
        completion_tokens=cost["completion"] or 0,
        call_seconds=(cost["latency"] or 0) / 1000,
        wall=end - batch.created_at,
    )


def batch_is_active(*, batch: JudgeBatch) -> bool:
    return batch.status == JudgeBatchStatus.RUNNING


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

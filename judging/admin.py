"""Django admin: judges, batches, tasks, calls and the gate's tests, read only (judges are set up on /manage/judges/)."""

from __future__ import annotations

from django.contrib import admin

from judging.models import Judge, JudgeBatch, JudgeCall, JudgeQualification, JudgeTask
from studies.inspection import InspectionAdmin


@admin.register(Judge)
class JudgeAdmin(InspectionAdmin):
    list_display = (
        "name",
        "endpoint",
        "prompt_version",
        "temperature",
        "samples",
        "provider_family",
        "is_active",
    )
    readonly_fields = ("user", "endpoint", "prompt_version", "created_at")


@admin.register(JudgeBatch)
class JudgeBatchAdmin(InspectionAdmin):
    list_display = ("pk", "judge", "study", "scenario", "status", "samples", "created_at", "finished_at")
    list_filter = ("status",)


@admin.register(JudgeTask)
class JudgeTaskAdmin(InspectionAdmin):
    list_display = ("pk", "batch", "response", "status", "attempts", "finished_at")
    list_filter = ("status",)


@admin.register(JudgeCall)
class JudgeCallAdmin(InspectionAdmin):
    list_display = ("pk", "task", "sample", "attempt", "prompt_tokens", "completion_tokens", "latency_ms")


@admin.register(JudgeQualification)
class JudgeQualificationAdmin(InspectionAdmin):
    list_display = ("pk", "judge", "study", "passed", "responses", "winning_rate", "model_name", "created_at")
    list_filter = ("passed",)

"""Django admin: judges are editable (settings only); batches, tasks and calls are read-only records."""

from __future__ import annotations

from django.contrib import admin

from judging.models import Judge, JudgeBatch, JudgeCall, JudgeTask


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Judge)
class JudgeAdmin(admin.ModelAdmin):
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

    def has_add_permission(self, request, obj=None) -> bool:
        return False  # created on the judges page or by `manage.py judge` (with their rater user)

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(JudgeBatch)
class JudgeBatchAdmin(ReadOnly):
    list_display = ("pk", "judge", "study", "scenario", "status", "samples", "created_at", "finished_at")
    list_filter = ("status",)


@admin.register(JudgeTask)
class JudgeTaskAdmin(ReadOnly):
    list_display = ("pk", "batch", "response", "status", "attempts", "finished_at")
    list_filter = ("status",)


@admin.register(JudgeCall)
class JudgeCallAdmin(ReadOnly):
    list_display = ("pk", "task", "sample", "attempt", "prompt_tokens", "completion_tokens", "latency_ms")

from django.contrib import admin

from generation.models import GenerationBatch, GenerationRun, PreferenceProfile, Turn
from studies.inspection import InspectionAdmin, InspectionTabularInline


@admin.register(PreferenceProfile)
class PreferenceProfileAdmin(InspectionAdmin):
    list_display = ("name", "study", "order", "is_active")
    list_filter = ("study", "is_active")
    search_fields = ("name", "preferences")


class RunInline(InspectionTabularInline):
    model = GenerationRun
    extra = 0
    fields = ("scenario", "endpoint", "condition", "status", "calls_done", "calls_total")
    readonly_fields = fields
    show_change_link = True


@admin.register(GenerationBatch)
class GenerationBatchAdmin(InspectionAdmin):
    list_display = ("__str__", "study", "status", "created_by", "created_at", "finished_at")
    list_filter = ("status", "study")
    inlines = [RunInline]


@admin.register(GenerationRun)
class GenerationRunAdmin(InspectionAdmin):
    list_display = (
        "id",
        "batch",
        "scenario",
        "endpoint",
        "condition",
        "status",
        "current_step",
        "current_phase",
        "calls_done",
        "calls_total",
        "attempts",
    )
    list_filter = ("status", "condition", "endpoint")
    search_fields = ("scenario__code", "endpoint__name", "error")
    raw_id_fields = ("response",)


@admin.register(Turn)
class TurnAdmin(InspectionAdmin):
    list_display = (
        "run",
        "seq",
        "step",
        "phase",
        "role",
        "prompt_tokens",
        "completion_tokens",
        "latency_ms",
        "attempts",
    )
    list_filter = ("phase", "step")
    search_fields = ("role", "reply")
    raw_id_fields = ("run",)

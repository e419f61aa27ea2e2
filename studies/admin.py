from django.contrib import admin

from studies.inspection import InspectionAdmin, InspectionTabularInline
from studies.models import (
    AuditEvent,
    Condition,
    ModelEndpoint,
    Response,
    ResponseImportJob,
    ResponseItem,
    ResponsePair,
    ResponseTextChange,
    Scenario,
    ScenarioTextChange,
    Study,
)


@admin.register(ModelEndpoint)
class ModelEndpointAdmin(InspectionAdmin):
    list_display = (
        "model_number",
        "name",
        "model_name",
        "base_url",
        "api_key_env",
        "concurrency_limit",
        "is_active",
    )
    list_filter = ("is_active",)
    search_fields = ("name", "model_name", "base_url")


@admin.register(Condition)
class ConditionAdmin(InspectionAdmin):
    list_display = ("letter", "name", "strategy")
    list_filter = ("strategy",)
    search_fields = ("letter", "name")


@admin.register(Study)
class StudyAdmin(InspectionAdmin):
    list_display = (
        "name",
        "rubric_version",
        "agreement_threshold",
        "headline_icc",
        "final_score_rule",
        "response_language",
        "is_active",
    )
    list_filter = ("is_active", "rubric_version", "response_language")
    search_fields = ("name",)


@admin.register(Scenario)
class ScenarioAdmin(InspectionAdmin):
    list_display = ("code", "theme", "study")
    list_filter = ("study",)
    search_fields = ("code", "theme", "text")


@admin.register(ScenarioTextChange)
class ScenarioTextChangeAdmin(InspectionAdmin):
    """The audit trail of scenario texts: read only."""

    list_display = ("scenario", "field_name", "at", "actor", "forced", "note")
    list_filter = ("forced", "field_name", "scenario__study")
    readonly_fields = ("scenario", "actor", "at", "field_name", "old_value", "new_value", "forced", "note")


@admin.register(ResponseTextChange)
class ResponseTextChangeAdmin(InspectionAdmin):
    """The versions of responses' texts (redactions on the held responses page): read only."""

    list_display = ("response", "step", "at", "actor", "names")
    list_filter = ("response__study",)
    readonly_fields = ("response", "step", "actor", "at", "names", "old_text", "new_text")


class ResponseItemInline(InspectionTabularInline):
    model = ResponseItem
    extra = 0


@admin.register(Response)
class ResponseAdmin(InspectionAdmin):
    list_display = (
        "research_id",
        "blind_code",
        "study",
        "scenario",
        "model",
        "condition",
        "source",
        "status",
        "step3_blank_items",
        "implied_correctly_used",
    )
    list_filter = ("study", "status", "source", "condition", "model", "scenario")
    search_fields = ("research_id", "blind_code")
    readonly_fields = ("blind_code", "grid", "grid_errors", "parse_notes", "created_at", "updated_at")
    inlines = [ResponseItemInline]


@admin.register(ResponsePair)
class ResponsePairAdmin(InspectionAdmin):
    """A pairwise unit's two source responses (A and B): read only, like every model here."""

    list_display = ("response", "left", "right")
    list_filter = ("response__study",)


@admin.register(AuditEvent)
class AuditEventAdmin(InspectionAdmin):
    """The audit trail of the product's pages and commands: read only."""

    list_display = ("at", "action", "target", "study", "actor")
    list_filter = ("action", "study")
    search_fields = ("action", "target", "reason", "actor__username")


@admin.register(ResponseImportJob)
class ResponseImportJobAdmin(InspectionAdmin):
    list_display = ("pk", "study", "status", "progress", "total", "created_by", "created_at", "finished_at")
    list_filter = ("status", "study")
    exclude = ("content",)  # the file's text, up to the upload limit: not for a page

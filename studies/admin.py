from django.contrib import admin

from studies.models import (
    AuditEvent,
    Condition,
    ModelEndpoint,
    Response,
    ResponseItem,
    Scenario,
    ScenarioTextChange,
    Study,
)
from studies.signals import response_answers_changed


@admin.register(ModelEndpoint)
class ModelEndpointAdmin(admin.ModelAdmin):
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
class ConditionAdmin(admin.ModelAdmin):
    list_display = ("letter", "name", "strategy")
    list_filter = ("strategy",)
    search_fields = ("letter", "name")


@admin.register(Study)
class StudyAdmin(admin.ModelAdmin):
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
class ScenarioAdmin(admin.ModelAdmin):
    list_display = ("code", "theme", "study")
    list_filter = ("study",)
    search_fields = ("code", "theme", "text")


@admin.register(ScenarioTextChange)
class ScenarioTextChangeAdmin(admin.ModelAdmin):
    """The audit trail of scenario texts: read only."""

    list_display = ("scenario", "field_name", "at", "actor", "forced", "note")
    list_filter = ("forced", "field_name", "scenario__study")
    readonly_fields = ("scenario", "actor", "at", "field_name", "old_value", "new_value", "forced", "note")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ResponseItemInline(admin.TabularInline):
    model = ResponseItem
    extra = 0


@admin.register(Response)
class ResponseAdmin(admin.ModelAdmin):
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

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        steps = [n for n in range(1, 7) if f"step{n}" in form.changed_data]
        if change and steps:  # in the admin's transaction: e.g. research recomputes diversity
            response_answers_changed.send(sender=Response, response=obj, steps=steps)


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    """The audit trail of the product's pages and commands: read only."""

    list_display = ("at", "action", "target", "study", "actor")
    list_filter = ("action", "study")
    search_fields = ("action", "target", "reason", "actor__username")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

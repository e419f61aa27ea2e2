from django.contrib import admin

from scoring.models import (
    Assignment,
    CalibrationDecision,
    DimensionScore,
    ExportJob,
    FinalScore,
    GroupAgreement,
    ItemScore,
    RaterProfile,
    Response,
    ResponseAgreement,
    ResponseItem,
    Scenario,
    ScoreSheet,
    ScoringGroup,
    SheetEvent,
    Study,
)


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


@admin.register(RaterProfile)
class RaterProfileAdmin(admin.ModelAdmin):
    list_display = ("user", "rater_code", "can_calibrate", "language")
    list_filter = ("can_calibrate", "language")
    search_fields = ("user__username", "rater_code")


@admin.register(ScoringGroup)
class ScoringGroupAdmin(admin.ModelAdmin):
    list_display = ("__str__", "study", "scenario", "condition", "rater_a", "rater_b", "archived_at")
    list_filter = ("study", "condition", "archived_at")
    search_fields = ("scenario__code", "rater_a__username", "rater_b__username")


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ("rater", "response", "role", "group", "created_at", "archived_at")
    list_filter = ("role", "archived_at", "response__study")
    search_fields = ("rater__username", "response__research_id", "response__blind_code")
    raw_id_fields = ("response", "group")


class ItemScoreInline(admin.TabularInline):
    model = ItemScore
    extra = 0


class DimensionScoreInline(admin.TabularInline):
    model = DimensionScore
    extra = 0


@admin.register(ScoreSheet)
class ScoreSheetAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "assignment",
        "status",
        "overall",
        "version",
        "source",
        "updated_at",
        "submitted_at",
    )
    list_filter = ("status", "source", "assignment__role")
    search_fields = ("assignment__rater__username", "assignment__response__research_id")
    readonly_fields = ("totals", "version", "last_batch_id")
    inlines = [ItemScoreInline, DimensionScoreInline]


@admin.register(SheetEvent)
class SheetEventAdmin(admin.ModelAdmin):
    list_display = ("sheet", "kind", "path", "old_value", "new_value", "actor", "at", "version")
    list_filter = ("kind",)
    search_fields = ("path", "note", "actor__username")

    def has_change_permission(self, request, obj=None):
        return False  # the audit trail is append-only

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(ResponseAgreement)
class ResponseAgreementAdmin(admin.ModelAdmin):
    list_display = ("response", "pcc", "p_value", "flagged", "reason", "after_pcc", "computed_at")
    list_filter = ("flagged", "reason")
    search_fields = ("response__research_id",)


@admin.register(GroupAgreement)
class GroupAgreementAdmin(admin.ModelAdmin):
    list_display = ("study", "scenario", "group", "stage", "n_responses", "reason", "computed_at")
    list_filter = ("study", "stage")


@admin.register(CalibrationDecision)
class CalibrationDecisionAdmin(admin.ModelAdmin):
    list_display = ("response", "assignment", "decided_by", "decided_at")
    search_fields = ("response__research_id", "reason")


@admin.register(FinalScore)
class FinalScoreAdmin(admin.ModelAdmin):
    list_display = ("response", "overall", "rule", "calibrated", "computed_at")
    list_filter = ("rule", "calibrated")
    search_fields = ("response__research_id",)


@admin.register(ExportJob)
class ExportJobAdmin(admin.ModelAdmin):
    list_display = ("kind", "status", "progress", "total", "created_by", "created_at", "finished_at")
    list_filter = ("kind", "status")

from django.contrib import admin

from scoring.models import (
    Assignment,
    DimensionScore,
    ItemScore,
    RaterProfile,
    ScoreSheet,
    ScoringGroup,
    SheetEvent,
)
from studies.inspection import InspectionAdmin, InspectionTabularInline


@admin.register(RaterProfile)
class RaterProfileAdmin(InspectionAdmin):
    list_display = ("user", "rater_code", "can_calibrate", "language")
    list_filter = ("can_calibrate", "language")
    search_fields = ("user__username", "rater_code")


@admin.register(ScoringGroup)
class ScoringGroupAdmin(InspectionAdmin):
    list_display = ("__str__", "study", "scenario", "condition", "rater_a", "rater_b", "archived_at")
    list_filter = ("study", "condition", "archived_at")
    search_fields = ("scenario__code", "rater_a__username", "rater_b__username")


@admin.register(Assignment)
class AssignmentAdmin(InspectionAdmin):
    list_display = ("rater", "response", "role", "group", "created_at", "archived_at")
    list_filter = ("role", "archived_at", "response__study")
    search_fields = ("rater__username", "response__research_id", "response__blind_code", "blind_code")
    raw_id_fields = ("response", "group")


class ItemScoreInline(InspectionTabularInline):
    model = ItemScore
    extra = 0


class DimensionScoreInline(InspectionTabularInline):
    model = DimensionScore
    extra = 0


@admin.register(ScoreSheet)
class ScoreSheetAdmin(InspectionAdmin):
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
class SheetEventAdmin(InspectionAdmin):
    list_display = ("sheet", "kind", "version", "actor", "at", "note")
    list_filter = ("kind",)
    search_fields = ("note", "actor__username")

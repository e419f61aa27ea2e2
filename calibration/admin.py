from django.contrib import admin

from calibration.models import CalibrationDecision, FinalScore, GroupAgreement, ResponseAgreement
from studies.inspection import InspectionAdmin


@admin.register(ResponseAgreement)
class ResponseAgreementAdmin(InspectionAdmin):
    list_display = ("response", "pcc", "p_value", "flagged", "reason", "after_pcc", "computed_at")
    list_filter = ("flagged", "reason")
    search_fields = ("response__research_id",)


@admin.register(GroupAgreement)
class GroupAgreementAdmin(InspectionAdmin):
    list_display = ("study", "scenario", "group", "stage", "n_responses", "reason", "computed_at")
    list_filter = ("study", "stage")


@admin.register(CalibrationDecision)
class CalibrationDecisionAdmin(InspectionAdmin):
    list_display = ("response", "assignment", "decided_by", "decided_at")
    search_fields = ("response__research_id", "reason")


@admin.register(FinalScore)
class FinalScoreAdmin(InspectionAdmin):
    list_display = ("response", "overall", "rule", "calibrated", "computed_at")
    list_filter = ("rule", "calibrated")
    search_fields = ("response__research_id",)

from django.contrib import admin

from research.models import ExportJob
from studies.inspection import InspectionAdmin


@admin.register(ExportJob)
class ExportJobAdmin(InspectionAdmin):
    list_display = ("kind", "status", "progress", "total", "created_by", "created_at", "finished_at")
    list_filter = ("kind", "status")

from django.contrib import admin

from research.models import ExportJob


@admin.register(ExportJob)
class ExportJobAdmin(admin.ModelAdmin):
    list_display = ("kind", "status", "progress", "total", "created_by", "created_at", "finished_at")
    list_filter = ("kind", "status")

from django.contrib import admin

from onboarding.models import Invitation
from studies.inspection import InspectionAdmin


@admin.register(Invitation)
class InvitationAdmin(InspectionAdmin):
    list_display = ("user", "study", "invited_by", "created_at", "last_link_at", "accepted_at")
    list_filter = ("study",)
    search_fields = ("user__username", "user__email")
    readonly_fields = (
        "user",
        "study",
        "invited_by",
        "created_at",
        "last_link_at",
        "emailed_at",
        "accepted_at",
    )

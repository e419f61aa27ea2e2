from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group

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


class InspectedAccounts:
    """Accounts and groups are inspected in the Django admin, never changed there, by
    anyone: an admin form would set passwords, staff and superuser flags and groups
    without the product's checks (no rater with unblinded roles, no password set for
    someone else) or its audit trail. Admins and superusers change accounts on the
    product's account pages; a superuser is made and its password set with
    ``createsuperuser`` and ``changepassword`` on the command line."""

    actions = None

    def has_add_permission(self, request, *args) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


User = get_user_model()
for model, base in ((User, UserAdmin), (Group, GroupAdmin)):
    if admin.site.is_registered(model):
        admin.site.unregister(model)
    admin.site.register(model, type(f"Inspected{base.__name__}", (InspectedAccounts, base), {}))

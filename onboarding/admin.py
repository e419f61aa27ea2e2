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


class SuperuserChangesOnly:
    """Accounts and groups are inspected in the Django admin and changed only by a
    superuser: whatever permissions a group grants, a staff member who is not a
    superuser cannot add, change or delete an account (its password, staff and
    superuser flags, groups) or a group. Admins manage accounts on the product's
    account pages, through audited services that never set a password or a flag."""

    def has_add_permission(self, request, *args) -> bool:
        return request.user.is_active and request.user.is_superuser

    def has_change_permission(self, request, obj=None) -> bool:
        return request.user.is_active and request.user.is_superuser

    def has_delete_permission(self, request, obj=None) -> bool:
        return request.user.is_active and request.user.is_superuser


User = get_user_model()
for model, base in ((User, UserAdmin), (Group, GroupAdmin)):
    if admin.site.is_registered(model):
        admin.site.unregister(model)
    admin.site.register(model, type(f"Inspected{base.__name__}", (SuperuserChangesOnly, base), {}))

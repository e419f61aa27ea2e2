"""The Django admin site: open to the Admin role only (inspection; every domain model
is read only, see ``studies.inspection``).

Django lets any active staff account in; here the account must also hold the Admin role
as the product counts it (``core.accounts.roles.is_admin``), which a rater never does, so a
legacy account that is both a rater and staff sees no unblinded data here either."""

from __future__ import annotations

from django.contrib import admin

from core.accounts.roles import is_admin


class TeamAdminSite(admin.AdminSite):
    def has_permission(self, request) -> bool:
        return super().has_permission(request) and is_admin(request.user)

"""The Django admin site: open to the Admin role only, and read only for every model
registered with it, the product's and third-party apps' alike (django-axes' login records,
accounts, groups): ``register`` gives each model admin the read-only permission hooks of
``studies.inspection``, so that no app's own admin class opens a way around the product's
services and their audit trail (a lockout is lifted on the accounts page, audited). Accounts
and groups included: an admin form would set passwords, staff and superuser flags and groups
without the product's checks (no rater with unblinded roles, no password set for someone
else); a superuser is made with ``createsuperuser`` and ``changepassword``.

Django lets any active staff account in; here the account must also hold the Admin role
as the product counts it (``core.accounts.roles.is_admin``), which a rater never does, so a
legacy account that is both a rater and staff sees no unblinded data here either."""

from __future__ import annotations

from django.contrib import admin
from django.urls import path
from django.views.generic import RedirectView

from core.accounts.roles import is_admin
from studies.inspection import ReadOnlyPermissions


class TeamAdminSite(admin.AdminSite):
    def has_permission(self, request) -> bool:
        return super().has_permission(request) and is_admin(request.user)

    def get_urls(self):
        """Django's own password pages would change a password outside the product's audited
        service: the admin's links to them lead to the product's page."""
        own = [
            path("password_change/", RedirectView.as_view(pattern_name="password_change")),
            path("password_change/done/", RedirectView.as_view(pattern_name="password_change")),
        ]
        return own + super().get_urls()

    def register(self, model_or_iterable, admin_class=None, **options):
        """Register as Django does, with the admin class made read only (whoever registers)."""
        admin_class = admin_class or admin.ModelAdmin
        if not issubclass(admin_class, ReadOnlyPermissions):
            admin_class = type(f"ReadOnly{admin_class.__name__}", (ReadOnlyPermissions, admin_class), {})
        super().register(model_or_iterable, admin_class, **options)

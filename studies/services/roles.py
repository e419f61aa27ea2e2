"""The role groups every installation has."""

from __future__ import annotations

from django.contrib.auth.models import Group, Permission

from core.accounts.roles import ADMIN, ALL_ROLES

# Admins may look at (never change) every model of these apps in the Django admin: the
# product's own pages, each with an audited service, are where things are changed.
ADMIN_PERMISSION_APPS = [
    "studies",
    "scoring",
    "calibration",
    "research",
    "generation",
    "onboarding",
    "training",
    "judging",
    "auth",
]


def admin_permissions():
    """The permissions of the Admin group: ``view_*`` of the product's apps and of auth,
    nothing that adds, changes or deletes (an account's password, staff or superuser
    flag, groups above all)."""
    return Permission.objects.filter(
        content_type__app_label__in=ADMIN_PERMISSION_APPS, codename__startswith="view_"
    )


def role_groups_ensure() -> dict[str, Group]:
    """The three role groups; Admin gets the view permissions of the product's apps."""
    groups = {name: Group.objects.get_or_create(name=name)[0] for name in ALL_ROLES}
    groups[ADMIN].permissions.set(admin_permissions())
    return groups

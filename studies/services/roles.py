"""The role groups every installation has."""

from __future__ import annotations

from django.contrib.auth.models import Group, Permission

from studies.roles import ADMIN, ALL_ROLES

# Admins get every permission of these apps (the Django admin shows them their models).
ADMIN_PERMISSION_APPS = ["studies", "scoring", "calibration", "research", "generation", "onboarding", "auth"]


def role_groups_ensure() -> dict[str, Group]:
    """The three role groups; Admin gets every permission of the product's apps."""
    groups = {name: Group.objects.get_or_create(name=name)[0] for name in ALL_ROLES}
    perms = Permission.objects.filter(content_type__app_label__in=ADMIN_PERMISSION_APPS)
    groups[ADMIN].permissions.set(perms)
    return groups

"""The role groups every installation has."""

from __future__ import annotations

from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.contrib.auth.models import Group, Permission
from django.db.models import QuerySet

from core.accounts.roles import ADMIN, ALL_ROLES

# The project's apps whose rows admins do not look at in the Django admin: the
# infrastructure's (task outbox, worker heartbeats, counters) and the API's tokens.
ADMIN_HIDDEN_APPS = frozenset({"core", "api"})


def admin_permission_apps() -> list[str]:
    """The apps whose every model admins may look at (never change) in the Django admin:
    the project's own apps of INSTALLED_APPS (their package a folder of this repository,
    not an installed dependency) but ``ADMIN_HIDDEN_APPS``, and auth. The product's own
    pages, each with an audited service, are where things are changed."""
    base = Path(settings.BASE_DIR)
    own = [config.label for config in apps.get_app_configs() if (base / config.name.split(".")[0]).is_dir()]
    return [label for label in own if label not in ADMIN_HIDDEN_APPS] + ["auth"]


def admin_permissions() -> QuerySet[Permission]:
    """The permissions of the Admin group: ``view_*`` of the product's apps and of auth,
    nothing that adds, changes or deletes (an account's password, staff or superuser
    flag, groups above all)."""
    return Permission.objects.filter(
        content_type__app_label__in=admin_permission_apps(), codename__startswith="view_"
    )


def role_groups_ensure() -> dict[str, Group]:
    """The three role groups; Admin gets the view permissions of the product's apps."""
    groups = {name: Group.objects.get_or_create(name=name)[0] for name in ALL_ROLES}
    groups[ADMIN].permissions.set(admin_permissions())
    return groups

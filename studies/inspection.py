"""The Django admin as an inspection tool: every domain model is shown read only.

Changes to a study (scores, settings, endpoints, conditions, accounts) go through the
product's pages and services, which validate them, check the role, audit them and run
their recomputes; an admin form would do none of that. This holds for superusers too
(``ModelAdmin`` grants them every permission), so the permission hooks answer ``False``
whoever asks, and inlines are read only as well."""

from __future__ import annotations

from django.contrib import admin
from django.db import models


class ReadOnlyPermissions:
    """The permission hooks of an admin or an inline, answering ``False`` whoever asks, and
    no actions (a third-party admin's own actions could write)."""

    def get_actions(self, request) -> dict:
        return {}

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class InspectionAdmin(ReadOnlyPermissions, admin.ModelAdmin):
    """A read-only ``ModelAdmin``: list, search, filter and view; never add, change or delete."""

    actions = None  # no "delete selected"
    # the view page still builds the model's form; Django 6 makes https the default scheme
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}


class InspectionTabularInline(ReadOnlyPermissions, admin.TabularInline):
    """A read-only inline of an ``InspectionAdmin``."""

    extra = 0
    can_delete = False
    show_change_link = False

"""A study's team members for TeamFusion: their profiles (stated preferences), entered
by an admin from the members' own questionnaires."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction
from django.utils.translation import gettext as _

from generation.models import PreferenceProfile
from studies.models import Study
from studies.services.audit import audit_changes, audit_record, audit_values

if TYPE_CHECKING:
    from django.contrib.auth.models import User

PROFILE_FIELDS = ("name", "preferences", "order", "is_active")


class ProfileError(ValueError):
    """The profile cannot be saved; nothing was changed."""


def member_profile_save(
    *,
    study: Study,
    name: str,
    preferences: str,
    order: int = 0,
    is_active: bool = True,
    profile_id: int | None = None,
    actor: User | None = None,
) -> PreferenceProfile:
    """Create a member profile in the study, or update ``profile_id`` (of that study);
    audited. A run already created keeps the profiles it was created with."""
    name, preferences = name.strip(), preferences.strip()
    if not name or not preferences:
        raise ProfileError(_("A member needs a name and stated preferences."))
    if name == "Synthesizer":
        raise ProfileError(_("“Synthesizer” is the name of TeamFusion's synthesizer; choose another name."))
    with transaction.atomic():
        clash = PreferenceProfile.objects.filter(study=study, name=name)
        if profile_id is not None:
            clash = clash.exclude(pk=profile_id)
        if clash.exists():
            raise ProfileError(_("This study already has a member named “%(name)s”.") % {"name": name})
        if profile_id is None:
            profile = PreferenceProfile.objects.create(
                study=study, name=name, preferences=preferences, order=order, is_active=is_active
            )
            changes = audit_changes(before={}, after=audit_values(profile, PROFILE_FIELDS))
            audit_record(
                actor=actor, action="member_profile.create", target=profile, study=study, changes=changes
            )
            return profile
        profile = PreferenceProfile.objects.select_for_update().get(pk=profile_id, study=study)
        before = audit_values(profile, PROFILE_FIELDS)
        profile.name, profile.preferences = name, preferences
        profile.order, profile.is_active = order, is_active
        profile.save(update_fields=list(PROFILE_FIELDS))
        changes = audit_changes(before=before, after=audit_values(profile, PROFILE_FIELDS))
        if changes:
            audit_record(
                actor=actor, action="member_profile.update", target=profile, study=study, changes=changes
            )
        return profile


def member_profile_delete(*, study: Study, profile_id: int, actor: User | None = None) -> bool:
    """Delete a member profile of the study; audited with what it held."""
    with transaction.atomic():
        profile = PreferenceProfile.objects.filter(pk=profile_id, study=study).first()
        if profile is None:
            return False
        changes = {key: [value, None] for key, value in audit_values(profile, PROFILE_FIELDS).items()}
        audit_record(
            actor=actor, action="member_profile.delete", target=profile, study=study, changes=changes
        )
        profile.delete()
    return True

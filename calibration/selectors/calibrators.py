"""Who may be given a calibration: raters marked "may calibrate" whose account can log in.

The login rule is ``teamllm_web.auth``'s: an active account, not a demo account unless
``DEMO_MODE`` is on, with a password, or without one yet but with a pending invitation
(the invitee sets it from the link). Routing a flagged response to anyone else would
leave it waiting on a person who cannot open it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import get_user_model

from core.accounts.roles import DEMO_GROUP, RATER

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def calibrators_who_can_log_in() -> set[int]:
    """The ids of the raters who may calibrate and can log in."""
    users = get_user_model().objects.filter(
        is_active=True, rater_profile__can_calibrate=True, groups__name=RATER
    )
    if not settings.DEMO_MODE:
        users = users.exclude(groups__name=DEMO_GROUP)
    # pending: invited (onboarding.Invitation, by its relation name), password not set yet
    invited = set(
        users.filter(invitations__isnull=False, invitations__accepted_at__isnull=True).values_list(
            "pk", flat=True
        )
    )
    return {
        user.pk for user in users.only("pk", "password") if user.has_usable_password() or user.pk in invited
    }


def calibrator_can_log_in(user: User) -> bool:
    return user.pk in calibrators_who_can_log_in()

"""Reads for the invitation pages."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from onboarding.models import Invitation
from studies.models import Study

ACCEPTED = "accepted"
PENDING = "pending"
EXPIRED = "expired"


def study_invitations(*, study: Study) -> list[dict]:
    """The study's invitations with their state: the invitee set a password, the link
    is pending, or the last link issued has expired."""
    cutoff = timezone.now() - timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT)
    rows = []
    for inv in (
        Invitation.objects.filter(study=study)
        .select_related("user", "user__rater_profile")
        .prefetch_related("user__groups")
    ):
        if inv.accepted_at is not None:
            state = ACCEPTED
        elif inv.last_link_at < cutoff:
            state = EXPIRED
        else:
            state = PENDING
        profile = getattr(inv.user, "rater_profile", None)
        rows.append(
            {
                "invitation": inv,
                "user": inv.user,
                "rater_code": profile.rater_code if profile is not None else None,
                "roles": sorted(g.name for g in inv.user.groups.all()),
                "state": state,
            }
        )
    return rows

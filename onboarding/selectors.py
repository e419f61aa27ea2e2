"""Reads for the invitation pages."""

from __future__ import annotations

from datetime import timedelta

from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Prefetch, Sum
from django.utils import timezone

from core.accounts.roles import ALL_ROLES, ROLE_LABELS
from onboarding.models import Invitation
from studies.models import Study

ACCEPTED = "accepted"
PENDING = "pending"
EXPIRED = "expired"
REVOKED = "revoked"  # the account was deactivated after the link was issued


def study_invitations(*, study: Study) -> list[dict]:
    """The study's invitations with their state: the invitee set a password, the link
    is pending, the last link issued has expired, or it was revoked."""
    cutoff = timezone.now() - timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT)
    rows = []
    for inv in (
        Invitation.objects.filter(study=study)
        .select_related("user", "user__rater_profile")
        .prefetch_related("user__groups")
    ):
        state = _link_state(inv, cutoff)
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


NO_LINK = "none"


def _link_state(invitation: Invitation | None, cutoff) -> str:
    if invitation is None:
        return NO_LINK
    if invitation.accepted_at is not None:
        return ACCEPTED
    if invitation.revoked_at is not None and invitation.revoked_at >= invitation.last_link_at:
        return REVOKED
    return EXPIRED if invitation.last_link_at < cutoff else PENDING


def accounts_list(*, user_id: int | None = None) -> list[dict]:
    """Every account (or the one with ``user_id``) with its roles, rater code, calibration
    right, whether it is active, its last login and the state of its last set-password
    link (for /manage/accounts/)."""
    cutoff = timezone.now() - timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT)
    users = (
        get_user_model()
        .objects.filter(judge__isnull=True)  # LLM judges' rater accounts never log in
        .select_related("rater_profile")
        .prefetch_related(
            "groups",
            Prefetch("invitations", queryset=Invitation.objects.order_by("-last_link_at"), to_attr="links"),
        )
        .order_by("username")
    )
    if user_id is not None:
        users = users.filter(pk=user_id)
    rows = []
    for user in users:
        profile = getattr(user, "rater_profile", None)
        roles = sorted(g.name for g in user.groups.all() if g.name in ALL_ROLES)
        rows.append(
            {
                "user": user,
                "roles": roles,
                "role_labels": [ROLE_LABELS[name] for name in roles],
                "superuser": user.is_superuser,
                "rater_code": profile.rater_code if profile is not None else None,
                "can_calibrate": bool(profile is not None and profile.can_calibrate),
                "has_password": user.has_usable_password(),
                "link_state": _link_state(user.links[0] if user.links else None, cutoff),
            }
        )
    return rows


def account_get(*, user_id: int) -> dict | None:
    """One row of ``accounts_list``, or None; with ``failed_logins``: the failed logins
    django-axes counts against the username (it is locked at ``AXES_FAILURE_LIMIT``)."""
    rows = accounts_list(user_id=user_id)
    if not rows:
        return None
    attempts = AccessAttempt.objects.filter(username=rows[0]["user"].get_username())
    rows[0]["failed_logins"] = attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
    return rows[0]

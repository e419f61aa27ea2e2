"""Reads for the invitation pages."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Prefetch, Q, QuerySet, Sum
from django.db.models.functions import Lower, Upper
from django.utils import timezone
from django.utils.translation import gettext as _

from core.accounts.roles import ALL_ROLES, ROLE_LABELS
from onboarding.csv_files import Invitee, line_problem
from onboarding.models import Invitation
from scoring.models import Assignment, AssignmentRole, RaterProfile, SheetStatus
from studies.models import AuditEvent, Study
from studies.services.audit import audit_target

if TYPE_CHECKING:
    from django.contrib.auth.models import User

ACCEPTED = "accepted"
PENDING = "pending"
EXPIRED = "expired"
REVOKED = "revoked"  # the account was deactivated after the link was issued


def study_invitations(*, study: Study) -> list[dict[str, Any]]:
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
                "role_labels": sorted(
                    str(ROLE_LABELS[g.name]) for g in inv.user.groups.all() if g.name in ALL_ROLES
                ),
                "state": state,
            }
        )
    return rows


NO_LINK = "none"


def _link_state(invitation: Invitation | None, cutoff: datetime) -> str:
    if invitation is None:
        return NO_LINK
    if invitation.accepted_at is not None:
        return ACCEPTED
    if invitation.revoked_at is not None and invitation.revoked_at >= invitation.last_link_at:
        return REVOKED
    return EXPIRED if invitation.last_link_at < cutoff else PENDING


def accounts_matching(*, search: str = "", role: str = "", active: bool | None = None) -> QuerySet[Any]:
    """The accounts (LLM judges' aside) whose username, name or email contains ``search``, in
    ``role`` (a role group's name), active or not; by username."""
    users = get_user_model().objects.filter(judge__isnull=True)  # judges' rater accounts never log in
    if search:
        users = users.filter(
            Q(username__icontains=search)
            | Q(first_name__icontains=search)
            | Q(last_name__icontains=search)
            | Q(email__icontains=search)
            | Q(rater_profile__rater_code__icontains=search)
        )
    if role:
        users = users.filter(groups__name=role)
    if active is not None:
        users = users.filter(is_active=active)
    return users.order_by("username")


def accounts_list(*, user_id: int | None = None, users: Iterable[Any] | None = None) -> list[dict[str, Any]]:
    """The accounts ``users`` (default: every one; or the one with ``user_id``) with their roles,
    rater code, calibration right, whether active, last login and the state of their last
    set-password link (for /manage/accounts/)."""
    cutoff = timezone.now() - timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT)
    chosen = accounts_matching()
    if user_id is not None:
        chosen = chosen.filter(pk=user_id)
    elif users is not None:
        chosen = chosen.filter(pk__in=[user.pk for user in users])
    chosen = chosen.select_related("rater_profile").prefetch_related(
        "groups",
        Prefetch("invitations", queryset=Invitation.objects.order_by("-last_link_at"), to_attr="links"),
    )
    rows = []
    for user in chosen:
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


def account_get(*, user_id: int) -> dict[str, Any] | None:
    """One row of ``accounts_list``, or None; with ``failed_logins``: the failed logins
    django-axes counts against the username (it is locked at ``AXES_FAILURE_LIMIT``)."""
    rows = accounts_list(user_id=user_id)
    if not rows:
        return None
    attempts = AccessAttempt.objects.filter(username=rows[0]["user"].get_username())
    rows[0]["failed_logins"] = attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
    return rows[0]


def invitees_existing_problems(*, invitees: list[Invitee]) -> list[str]:
    """The invitees who are here already: a username, email or rater code taken (any case)."""
    user_model = get_user_model()
    usernames = set(
        user_model.objects.annotate(low=Lower("username"))
        .filter(low__in=[i.username.lower() for i in invitees])
        .values_list("low", flat=True)
    )
    emails = set(
        user_model.objects.annotate(low=Lower("email"))
        .filter(low__in=[i.email.lower() for i in invitees])
        .values_list("low", flat=True)
    )
    codes = set(
        RaterProfile.objects.annotate(up=Upper("rater_code"))
        .filter(up__in=[i.rater_code.upper() for i in invitees if i.rater_code])
        .values_list("up", flat=True)
    )
    problems = []
    for invitee in invitees:
        if invitee.username.lower() in usernames:
            problems.append(
                line_problem(
                    invitee.line, "username", _("a user %(u)r already exists") % {"u": invitee.username}
                )
            )
        if invitee.email.lower() in emails:
            problems.append(
                line_problem(
                    invitee.line, "email", _("another user already has %(e)s") % {"e": invitee.email}
                )
            )
        if invitee.rater_code and invitee.rater_code.upper() in codes:
            problems.append(
                line_problem(
                    invitee.line, "rater_code", _("rater code %(c)s is taken") % {"c": invitee.rater_code}
                )
            )
    return problems


UNBLINDED_ROLE_NAMES = {"admin", "researcher"}


def account_crosses_the_blind(*, user: User, before: set[str], wanted: set[str]) -> bool:
    """Whether ``wanted`` would put the account on the other side of the blind from where it
    has ever been: a rater (a rater profile stays when the role goes) never becomes someone
    who sees unblinded data, nor the reverse, even by way of an account with no role
    (hostile pass 14: a live rater made researcher read the study's data, then scored on)."""
    if wanted & UNBLINDED_ROLE_NAMES:
        return bool(before - UNBLINDED_ROLE_NAMES) or _has_been_rater(user)
    if "rater" not in wanted:
        return False
    if before & UNBLINDED_ROLE_NAMES or user.is_staff or user.is_superuser:
        return True
    return bool(UNBLINDED_ROLE_NAMES & _roles_ever_held(user))


def _has_been_rater(user: User) -> bool:
    """Whether the account has ever been a rater. A rater profile alone does not say so: an
    invitation gives one to every invitee with a language, researchers and admins too (hostile
    pass 24: a superuser could not give an invited researcher back the role taken from them)."""
    profile: RaterProfile | None = getattr(user, "rater_profile", None)
    if profile is not None and (profile.rater_code or profile.can_calibrate):
        return True
    if {"rater", "calibrator"} & _roles_ever_held(user):
        return True
    return Assignment.objects.filter(rater=user).exists()


def _roles_ever_held(user: User) -> set[str]:
    """Every role the audit trail says the account was invited with or has held."""
    held: set[str] = set()
    events = AuditEvent.objects.filter(
        action__in=["account.invite", "account.roles"], target=audit_target(user)
    )
    for event in events.only("action", "changes"):
        roles = event.changes.get("roles") or []
        # an invitation records its roles; a change of roles its roles before and after
        sides = [roles] if event.action == "account.invite" else roles
        held.update(role for side in sides for role in side or [])
    return held


def account_open_sheets_count(*, user_id: int) -> int:
    """The account's live and calibration assignments not submitted yet: after a deactivation
    they wait for nobody until an admin reassigns them (hostile pass 25: nothing said so)."""
    return (
        Assignment.objects.filter(rater_id=user_id, archived_at__isnull=True)
        .exclude(role=AssignmentRole.TRAINING)
        .exclude(sheet__status=SheetStatus.SUBMITTED)
        .count()
    )

"""Inviting raters (and researchers, admins) in bulk, and setting a password from a link.

No admin ever sees or sets an invitee's password: invitees are created without a usable
password and choose their own through a one-time link."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import EmailMessage, get_connection
from django.db import transaction
from django.db.models.functions import Lower, Upper
from django.utils import timezone, translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _

from onboarding.csv_files import Invitee, InviteFileError, line_problem
from onboarding.models import Invitation
from onboarding.tokens import invitation_tokens
from scoring.models import RaterProfile
from studies.models import Study
from studies.roles import ADMIN, RATER, RESEARCHER
from studies.services.roles import role_groups_ensure

ROLE_GROUPS = {"rater": RATER, "calibrator": RATER, "researcher": RESEARCHER, "admin": ADMIN}
LinkBuilder = Callable[[str, str], str]  # (uidb64, token) -> absolute URL


@dataclass(frozen=True)
class InvitationLink:
    username: str
    email: str
    link: str
    emailed: bool


class InvitationError(Exception):
    pass


def _existing_problems(invitees: list[Invitee]) -> list[str]:
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


def _link(user, link_for: LinkBuilder) -> str:
    return link_for(urlsafe_base64_encode(force_bytes(user.pk)), invitation_tokens.make_token(user))


def _send(user, link: str, language: str, study: Study | None, connection) -> bool:
    """The invitation mail in the invitee's language; False if the mail server refused it."""
    days = max(1, settings.PASSWORD_RESET_TIMEOUT // 86400)
    with translation.override(language or settings.LANGUAGE_CODE):
        subject = _("Your teamllm-web account")
        body = _(
            "Hello %(name)s,\n\nyou have been invited to score responses%(study)s on teamllm-web. "
            "Your username is %(username)s. Choose your password here (the link works once, "
            "for %(days)s days):\n\n%(link)s\n"
        ) % {
            "name": user.first_name or user.username,
            "study": (_(" for the study %(s)s") % {"s": study.name}) if study else "",
            "username": user.username,
            "days": days,
            "link": link,
        }
    try:
        EmailMessage(
            settings.EMAIL_SUBJECT_PREFIX + subject, body, to=[user.email], connection=connection
        ).send()
    except Exception:  # any transport error: the admin still has the link on the page
        return False
    return True


def raters_invite(
    *,
    study: Study | None,
    invitees: list[Invitee],
    actor,
    link_for: LinkBuilder,
    connection=None,
    email: bool = True,
) -> list[InvitationLink]:
    """Create every invitee (no usable password, their role groups, a rater profile with
    their code and UI language) and return one set-password link each; all or nothing.
    Mails go out after the commit through the configured backend."""
    problems = _existing_problems(invitees)
    if problems:
        raise InviteFileError(problems)
    user_model = get_user_model()
    now = timezone.now()
    created = []
    with transaction.atomic():
        groups = role_groups_ensure()
        for invitee in invitees:
            user = user_model(
                username=invitee.username,
                email=invitee.email,
                first_name=invitee.name[:150],
                is_staff="admin" in invitee.roles,
            )
            user.set_unusable_password()
            user.save()
            user.groups.set({groups[ROLE_GROUPS[role]] for role in invitee.roles})
            if invitee.is_rater or invitee.language:
                RaterProfile.objects.create(
                    user=user,
                    rater_code=invitee.rater_code or None,
                    can_calibrate="calibrator" in invitee.roles,
                    language=invitee.language,
                )
            invitation = Invitation.objects.create(user=user, study=study, invited_by=actor, last_link_at=now)
            created.append((invitation, invitee.language))
    links = []
    connection = connection or (get_connection() if email else None)
    for invitation, language in created:
        link = _link(invitation.user, link_for)
        sent = email and _send(invitation.user, link, language, study, connection)
        if sent:
            Invitation.objects.filter(pk=invitation.pk).update(emailed_at=timezone.now())
        links.append(InvitationLink(invitation.user.username, invitation.user.email, link, bool(sent)))
    return links


def invitation_link_renew(*, invitation_id: int, link_for: LinkBuilder, email: bool = True) -> InvitationLink:
    """A fresh link for an invitee who has not set a password yet (the old one expired or got lost)."""
    invitation = Invitation.objects.select_related("user", "study").get(pk=invitation_id)
    if invitation.accepted_at is not None or invitation.user.has_usable_password():
        raise InvitationError(_("%(u)s has already set a password.") % {"u": invitation.user.username})
    invitation.last_link_at = timezone.now()
    invitation.save(update_fields=["last_link_at"])
    link = _link(invitation.user, link_for)
    profile = getattr(invitation.user, "rater_profile", None)
    language = profile.language if profile is not None else ""
    sent = email and _send(invitation.user, link, language, invitation.study, get_connection())
    if sent:
        Invitation.objects.filter(pk=invitation.pk).update(emailed_at=timezone.now())
    return InvitationLink(invitation.user.username, invitation.user.email, link, bool(sent))


def invitation_accept(*, user, password: str) -> None:
    """The invitee's own password; the link is used up (the token signs the password hash)."""
    with transaction.atomic():
        user.set_password(password)
        user.save(update_fields=["password"])
        Invitation.objects.filter(user=user, accepted_at__isnull=True).update(accepted_at=timezone.now())

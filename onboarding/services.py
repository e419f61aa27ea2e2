"""Inviting raters (and researchers, admins) in bulk, and setting a password from a link.

No admin ever sees or sets an invitee's password: invitees are created without a usable
password and choose their own through a one-time link."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.mail import EmailMessage, get_connection
from django.db import transaction
from django.utils import timezone, translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _

from core.accounts.roles import ADMIN, ALL_ROLES, RATER, RESEARCHER, roles_conflict
from onboarding.csv_files import Invitee, InviteFileError, invitees_read, line_problem
from onboarding.models import Invitation
from onboarding.selectors import account_crosses_the_blind, invitees_existing_problems
from onboarding.signals import account_deactivated
from onboarding.tokens import invitation_tokens
from scoring.models import RaterProfile
from studies.models import Study
from studies.services.audit import audit_changes, audit_record
from studies.services.roles import role_groups_ensure

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.core.mail.backends.base import BaseEmailBackend

ROLE_GROUPS = {"rater": RATER, "calibrator": RATER, "researcher": RESEARCHER, "admin": ADMIN}
# Mail backends that deliver nothing: the console one writes the mail (and its link) to
# the server's log, the others keep it on this machine.
UNDELIVERED_MAIL_BACKENDS = (
    "django.core.mail.backends.console",
    "django.core.mail.backends.dummy",
    "django.core.mail.backends.filebased",
)
LinkBuilder = Callable[[str, str], str]  # (uidb64, token) -> absolute URL


@dataclass(frozen=True)
class InvitationLink:
    username: str
    email: str
    link: str
    emailed: bool


class InvitationError(Exception):
    pass


def account_roles_problem(*, roles: Iterable[str]) -> str | None:
    """Why one account cannot hold these roles (rater, calibrator, researcher, admin), or
    None. The rater role and a role that sees unblinded data (admin, researcher) are
    never on one account: double-blind scoring. Every path that grants roles (the
    invitation page and command, the account pages) asks this."""
    if roles_conflict({ROLE_GROUPS[role] for role in roles}):
        return _(
            "a rater cannot also be a researcher or an admin (they see who scored what): "
            "give the other role to a second account, with its own username and email"
        )
    return None


def _roles_problems(invitees: list[Invitee], actor: User | None) -> list[str]:
    problems = []
    for invitee in invitees:
        problem = account_roles_problem(roles=invitee.roles)
        if problem:
            problems.append(line_problem(invitee.line, "roles", problem))
        # the command line (no actor) is trusted; on the page only a superuser adds admins
        if "admin" in invitee.roles and actor is not None and not actor.is_superuser:
            problems.append(line_problem(invitee.line, "roles", _("only a superuser may invite an admin")))
    return problems


def _link(user: User, link_for: LinkBuilder) -> str:
    return link_for(urlsafe_base64_encode(force_bytes(user.pk)), invitation_tokens.make_token(user))


def mail_delivers(connection: BaseEmailBackend) -> bool:
    """The mail backend hands mail on for delivery (SMTP, and locmem in tests); the
    console, dummy and file backends do not."""
    return type(connection).__module__ not in UNDELIVERED_MAIL_BACKENDS


def _send(user: User, link: str, language: str, study: Study | None, connection: BaseEmailBackend) -> bool:
    """The invitation mail in the invitee's language; True only if a backend that
    delivers accepted it. A backend that does not deliver gets no mail outside demo
    mode (the console backend would write the link to the server's log)."""
    delivers = mail_delivers(connection)
    if not delivers and not settings.DEMO_MODE:
        return False
    days = max(1, settings.PASSWORD_RESET_TIMEOUT // 86400)
    with translation.override(language or settings.LANGUAGE_CODE):
        subject = _("Your teamllm-web account")
        body = _(
            "Hello %(name)s,\n\nyou have an account%(study)s on teamllm-web. "
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
    return delivers


def _deliver(
    invitation: Invitation, link_for: LinkBuilder, email: bool, connection: BaseEmailBackend | None = None
) -> InvitationLink:
    """The invitation's link (signed over its ``last_link_at``: any earlier link stops
    working), mailed when asked and a backend delivers."""
    user = invitation.user
    link = _link(user, link_for)
    profile = getattr(user, "rater_profile", None)
    language = profile.language if profile is not None else ""
    sent = (
        bool(user.email)
        and email
        and _send(user, link, language, invitation.study, connection or get_connection())
    )
    if sent:
        Invitation.objects.filter(pk=invitation.pk).update(emailed_at=timezone.now())
    return InvitationLink(user.username, user.email, link, bool(sent))


def raters_invite_file(
    *,
    study: Study | None,
    content: bytes,
    actor: User | None,
    link_for: LinkBuilder,
    connection: BaseEmailBackend | None = None,
    email: bool = True,
) -> list[InvitationLink]:
    """``raters_invite`` for a CSV file: the problems of its lines and of its people (roles,
    accounts already here) in one list, so that one pass of corrections is enough."""
    invitees, problems = invitees_read(content)
    problems += _roles_problems(invitees, actor) + invitees_existing_problems(invitees=invitees)
    if problems:
        raise InviteFileError(problems)
    return raters_invite(
        study=study, invitees=invitees, actor=actor, link_for=link_for, connection=connection, email=email
    )


def raters_invite(
    *,
    study: Study | None,
    invitees: list[Invitee],
    actor: User | None,
    link_for: LinkBuilder,
    connection: BaseEmailBackend | None = None,
    email: bool = True,
) -> list[InvitationLink]:
    """Create every invitee (no usable password, their role groups, a rater profile with
    their code and UI language) and return one set-password link each; all or nothing.
    Mails go out after the commit through the configured backend."""
    problems = _roles_problems(invitees, actor) + invitees_existing_problems(invitees=invitees)
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
            audit_record(
                actor=actor,
                action="account.invite",
                target=user,
                study=study,
                changes={"username": user.username, "roles": sorted(invitee.roles)},
            )
            created.append(invitation)
    connection = connection or (get_connection() if email else None)
    return [_deliver(invitation, link_for, email, connection) for invitation in created]


def _link_issue(*, invitation: Invitation, actor: User | None, reason: str = "") -> None:
    """A new ``last_link_at``: the links issued before it stop working."""
    with transaction.atomic():
        invitation.last_link_at = timezone.now()
        invitation.save(update_fields=["last_link_at"])
        audit_record(
            actor=actor,
            action="account.link",
            target=invitation.user,
            study=invitation.study,
            changes={"invitation": invitation.pk},
            reason=reason,
        )


def invitation_link_renew(
    *,
    invitation_id: int,
    link_for: LinkBuilder,
    email: bool = True,
    actor: User | None = None,
) -> InvitationLink:
    """A fresh link for an invitee who has not set a password yet (the old one expired or
    got lost); the previous link stops working."""
    return invitation_links_renew(
        invitation_ids=[invitation_id], link_for=link_for, email=email, actor=actor
    )[0]


def invitation_links_renew(
    *,
    invitation_ids: list[int],
    link_for: LinkBuilder,
    email: bool = True,
    actor: User | None = None,
) -> list[InvitationLink]:
    """Fresh links for invitees who have not set a password yet, all or none (each audited;
    each previous link stops working); mailed, where asked, once the new links are stored."""
    wanted = sorted(set(invitation_ids))
    with transaction.atomic():
        invitations = list(
            Invitation.objects.select_for_update(of=("self",))
            .select_related("user", "study")
            .filter(pk__in=wanted)
            .order_by("pk")
        )
        if not invitations or len(invitations) < len(wanted):
            raise InvitationError(_("No such invitation."))
        for invitation in invitations:
            if invitation.accepted_at is not None or invitation.user.has_usable_password():
                raise InvitationError(
                    _("%(u)s has already set a password.") % {"u": invitation.user.username}
                )
            if not invitation.user.is_active:  # as the account page says (hostile pass 13)
                raise InvitationError(
                    _("%(u)s is deactivated: reactivate the account first.") % {"u": invitation.user.username}
                )
            if actor is not None:
                account_may_manage(actor=actor, user=invitation.user)
        for invitation in invitations:
            _link_issue(invitation=invitation, actor=actor)
    connection = get_connection() if email else None
    return [_deliver(invitation, link_for, email, connection) for invitation in invitations]


def invitation_accept(*, user: User, password: str) -> None:
    """The invitee's own password, checked by the password validators (ValidationError);
    the link is used up (the token signs the password hash)."""
    validate_password(password, user)
    with transaction.atomic():
        user.set_password(password)
        user.save(update_fields=["password"])
        for invitation in Invitation.objects.filter(user=user, accepted_at__isnull=True).select_related(
            "study"
        ):
            invitation.accepted_at = timezone.now()
            invitation.save(update_fields=["accepted_at"])
            audit_record(actor=user, action="invitation.accept", target=invitation, study=invitation.study)


def account_password_change(*, user: User, password: str) -> None:
    """The account's owner changes their own password (the form checked the old one and the
    validators); audited, the password itself never."""
    with transaction.atomic():
        user.set_password(password)
        user.save(update_fields=["password"])
        audit_record(actor=user, action="account.password_change", target=user)


# --- Accounts: what an admin may do to another account --------------------------------


class AccountError(Exception):
    pass


def _role_names(user: User) -> set[str]:
    """The account's product roles as the invitation CSV names them."""
    groups = set(user.groups.filter(name__in=ALL_ROLES).values_list("name", flat=True))
    names = {name for name, group in ROLE_GROUPS.items() if group in groups and group != RATER}
    if RATER in groups:
        profile = getattr(user, "rater_profile", None)
        names.add("calibrator" if profile is not None and profile.can_calibrate else "rater")
    return names


def account_may_manage(*, actor: User, user: User) -> None:
    """Admins manage raters and researchers; admin and superuser accounts only a
    superuser does. Nobody deactivates or re-roles their own account here."""
    if not actor.is_superuser and (user.is_superuser or user.groups.filter(name=ADMIN).exists()):
        raise AccountError(_("Only a superuser may change the admin account %(u)s.") % {"u": user.username})


def _target(*, actor: User, user_id: int) -> User:
    # LLM judges' rater accounts (``judging.Judge.user``) never log in: not managed here
    people = get_user_model().objects.filter(judge__isnull=True)
    user = people.select_related("rater_profile").filter(pk=user_id).first()
    if user is None:
        raise AccountError(_("No such account."))
    account_may_manage(actor=actor, user=user)
    return user


def account_roles_set(*, actor: User, user_id: int, roles: Iterable[str], reason: str = "") -> None:
    """The account's roles (rater, calibrator, researcher, admin; calibrator is a rater
    who may calibrate). Only a superuser grants or removes Admin; the rater role never
    joins an unblinded one. Staff follows the Admin role; passwords and the superuser flag
    are never touched. Groups that are not roles (the demo marker, a lab's own) stay."""
    wanted = {role for role in roles if role in ROLE_GROUPS}
    if "calibrator" in wanted:
        wanted.add("rater")
    user = _target(actor=actor, user_id=user_id)
    if user.pk == actor.pk:
        raise AccountError(_("You cannot change the roles of your own account."))
    before = _role_names(user)
    if (("admin" in wanted) != ("admin" in before)) and not actor.is_superuser:
        raise AccountError(_("Only a superuser may grant or remove the admin role."))
    problem = account_roles_problem(roles=wanted)
    if problem:
        raise AccountError(_("%(u)s: %(problem)s.") % {"u": user.username, "problem": problem})
    if account_crosses_the_blind(user=user, before=before, wanted=wanted):
        raise AccountError(
            _(
                "%(u)s has been on the other side of the blind (a rater never sees unblinded data, and "
                "someone who has seen it never scores): give the new role to a second account."
            )
            % {"u": user.username}
        )
    with transaction.atomic():
        groups = role_groups_ensure()
        keep = list(user.groups.exclude(name__in=ALL_ROLES))
        user.groups.set([*keep, *{groups[ROLE_GROUPS[role]] for role in wanted}])
        if not user.is_superuser and user.is_staff != ("admin" in wanted):
            user.is_staff = "admin" in wanted
            user.save(update_fields=["is_staff"])
        calibrates = "calibrator" in wanted
        profile = getattr(user, "rater_profile", None)
        if "rater" in wanted and profile is None:
            RaterProfile.objects.create(user=user, can_calibrate=calibrates)
        elif profile is not None and profile.can_calibrate != calibrates:
            profile.can_calibrate = calibrates
            profile.save(update_fields=["can_calibrate"])
        after = {role for role in wanted if role != "rater" or not calibrates}
        audit_record(
            actor=actor,
            action="account.roles",
            target=user,
            changes=audit_changes(before={"roles": sorted(before)}, after={"roles": sorted(after)}),
            reason=reason,
        )


def account_active_set(*, actor: User, user_id: int, active: bool, reason: str = "") -> None:
    """Deactivate (the account can no longer log in; its sessions end on their next
    request; every set-password link issued so far stops working, for good) or reactivate
    an account (a new link is sent if its owner needs one). Its scores and history stay."""
    user = _target(actor=actor, user_id=user_id)
    if user.pk == actor.pk:
        raise AccountError(_("You cannot deactivate your own account."))
    if user.is_active == active:
        return
    with transaction.atomic():
        user.is_active = active
        user.save(update_fields=["is_active"])
        changes: dict[str, object] = {"is_active": [not active, active]}
        if not active:
            changes["links_revoked"] = Invitation.objects.filter(user=user).update(revoked_at=timezone.now())
            account_deactivated.send(sender=type(user), user=user, actor=actor)
        audit_record(
            actor=actor,
            action="account.reactivate" if active else "account.deactivate",
            target=user,
            changes=changes,
            reason=reason,
        )


def account_link_send(
    *, actor: User, user_id: int, link_for: LinkBuilder, email: bool = True
) -> InvitationLink:
    """A new set-password link for the account (a lost invitation, a forgotten
    password); the account's previous link stops working. The admin never sees or sets
    the password: the account's owner chooses it through the link."""
    user = _target(actor=actor, user_id=user_id)
    if not user.is_active:
        raise AccountError(_("%(u)s is deactivated: reactivate the account first.") % {"u": user.username})
    if user.has_usable_password():
        return _password_reset_mail(actor=actor, user=user, link_for=link_for)
    invitation = (
        Invitation.objects.select_related("user", "study")
        .filter(user=user, accepted_at__isnull=True)
        .order_by("-last_link_at")
        .first()
    )
    if invitation is None:
        invitation = Invitation.objects.create(user=user, invited_by=actor, last_link_at=timezone.now())
    _link_issue(invitation=invitation, actor=actor)
    return _deliver(invitation, link_for, email)


def _password_reset_mail(*, actor: User | None, user: User, link_for: LinkBuilder) -> InvitationLink:
    """A new link for an account that has a password goes to the account's own e-mail
    address only and is never shown: the admin who asked for it could otherwise choose
    the password and log in as that person. No delivering mail backend, no link."""
    connection = get_connection()
    if not user.email or not mail_delivers(connection):
        raise AccountError(
            _(
                "%(u)s already has a password: a new link goes only to the account's own e-mail "
                "address, and this site cannot send it (no e-mail address, or no mail server: EMAIL_URL)."
            )
            % {"u": user.username}
        )
    with transaction.atomic():
        invitation = Invitation.objects.filter(user=user).order_by("-last_link_at").first()
        if invitation is None:
            invitation = Invitation.objects.create(user=user, invited_by=actor, last_link_at=timezone.now())
        _link_issue(invitation=invitation, actor=actor, reason="password reset, e-mailed only")
        delivered = _deliver(invitation, link_for, email=True, connection=connection)
        if not delivered.emailed:  # nothing stays valid that nobody received
            raise AccountError(
                _("The link could not be e-mailed to %(u)s; nothing was changed.") % {"u": user.username}
            )
    return InvitationLink(delivered.username, delivered.email, "", emailed=True)


def account_unlock(*, actor: User, user_id: int) -> int:
    """Lift the login lock of the account's username: delete django-axes' failed
    attempts recorded for it (locks of client addresses stay). Returns how many."""
    user = _target(actor=actor, user_id=user_id)
    with transaction.atomic():
        count: int
        count, _ = AccessAttempt.objects.filter(username=user.get_username()).delete()
        if count:
            audit_record(
                actor=actor, action="account.unlock", target=user, changes={"attempts_deleted": count}
            )
    return count

"""Inviting people by CSV (admins) and setting a password from an invitation link (the invitee)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import SetPasswordForm
from django.core.mail import get_connection
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.http import urlsafe_base64_decode
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from core.accounts.roles import ADMIN, RATER, RESEARCHER, admin_required
from core.i18n import language_cookie_set
from core.rate_limits import RateUsage, rate_usage
from onboarding.csv_files import InviteFileError
from onboarding.forms import (
    AccountActiveForm,
    AccountFilterForm,
    AccountRolesForm,
    InvitationsRenewForm,
    InviteForm,
)
from onboarding.models import Invitation
from onboarding.selectors import (
    ACCEPTED,
    EXPIRED,
    account_get,
    account_open_sheets_count,
    accounts_list,
    accounts_matching,
    study_invitations,
)
from onboarding.services import (
    AccountError,
    InvitationError,
    account_active_set,
    account_link_send,
    account_roles_set,
    account_unlock,
    invitation_accept,
    invitation_link_renew,
    invitation_links_renew,
    mail_delivers,
    raters_invite_file,
)
from onboarding.tokens import VALID, invitation_tokens
from studies.models import Study

if TYPE_CHECKING:
    from core.accounts.requests import AuthenticatedHttpRequest

SESSION_KEY = "onboarding_invitation_link"


def _link_builder(request: HttpRequest):
    def build(uidb64: str, token: str) -> str:
        return request.build_absolute_uri(reverse("onboarding:link", args=[uidb64, token]))

    return build


@admin_required
def invite_page(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    form = InviteForm(request.POST or None, request.FILES or None)
    problems: list[str] = []
    invitations = study_invitations(study=study)
    if request.method == "POST" and form.is_valid():
        try:
            links = raters_invite_file(
                study=study,
                content=form.cleaned_data["file"].read(),
                actor=request.user,
                link_for=_link_builder(request),
                email=form.cleaned_data["send_email"],
            )
        except InviteFileError as exc:
            problems = exc.problems
        else:
            return _links_page(request, study, links)
    context = {
        "study": study,
        "form": form,
        "problems": problems,
        "invitations": invitations,
        "renewable": any(row["state"] != ACCEPTED for row in invitations),
        "expired": sum(row["state"] == EXPIRED for row in invitations),
    }
    return render(request, "onboarding/invite.html", context, status=400 if problems or form.errors else 200)


@admin_required
@require_POST
def invitation_renew_view(request: AuthenticatedHttpRequest, invitation_id: int) -> HttpResponse:
    invitation = get_object_or_404(Invitation.objects.select_related("study"), pk=invitation_id)
    try:
        link = invitation_link_renew(
            invitation_id=invitation.pk, link_for=_link_builder(request), actor=request.user
        )
    except (InvitationError, AccountError) as exc:
        messages.error(request, str(exc))
        if invitation.study is None:
            return redirect("onboarding:accounts")
        return redirect("onboarding:invite", study_id=invitation.study.pk)
    return _links_page(request, invitation.study, [link])


@admin_required
@require_POST
def invitations_renew_view(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    """New links for the ticked invitations of the study, or for every one whose link expired."""
    study = get_object_or_404(Study, pk=study_id)
    form = InvitationsRenewForm(request.POST, study=study)
    if not form.is_valid():
        for error in form.non_field_errors() or [_("Tick at least one invitation first.")]:
            messages.error(request, str(error))
        return redirect("onboarding:invite", study_id=study.pk)
    try:
        links = invitation_links_renew(
            invitation_ids=form.invitation_ids(), link_for=_link_builder(request), actor=request.user
        )
    except (InvitationError, AccountError) as exc:
        messages.error(request, str(exc))
        return redirect("onboarding:invite", study_id=study.pk)
    return _links_page(request, study, links)


def _links_page(request: HttpRequest, study, links) -> HttpResponse:
    context = {"study": study, "links": links, "mail_delivers": mail_delivers(get_connection())}
    return render(request, "onboarding/links.html", context)


ACCOUNTS_PER_PAGE = 100

# --- Accounts ------------------------------------------------------------------------


@admin_required
def accounts_page(request: HttpRequest) -> HttpResponse:
    """Every account, filtered and 100 a page."""
    form = AccountFilterForm(request.GET)
    shown = Paginator(accounts_matching(**form.account_filters()), ACCOUNTS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    kept = [(key, request.GET[key][:150]) for key in form.fields if request.GET.get(key)]
    context = {
        "form": form,
        "accounts": accounts_list(users=shown.object_list),
        "page": shown,
        "page_query": urlencode(kept),
    }
    return render(request, "onboarding/accounts.html", context)


@admin_required
def account_page(request: AuthenticatedHttpRequest, user_id: int) -> HttpResponse:
    account = account_get(user_id=user_id)
    if account is None:
        raise Http404
    current = set(account["roles"])
    initial = [name for name, group in (("researcher", RESEARCHER), ("admin", ADMIN)) if group in current]
    if RATER in current:
        initial.append("calibrator" if account["can_calibrate"] else "rater")
    form = AccountRolesForm(request.POST or None, initial={"roles": initial})
    if request.method == "POST" and form.is_valid():
        try:
            account_roles_set(actor=request.user, user_id=user_id, **form.cleaned_data)
        except AccountError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, _("The roles of %(u)s are saved.") % {"u": account["user"].username})
            return redirect("onboarding:account", user_id=user_id)
    context = {"account": account, "form": form}
    return render(request, "onboarding/account.html", context, status=400 if form.errors else 200)


@admin_required
@require_POST
def account_active_view(request: AuthenticatedHttpRequest, user_id: int) -> HttpResponse:
    form = AccountActiveForm(request.POST)
    if form.is_valid():
        try:
            account_active_set(actor=request.user, user_id=user_id, **form.cleaned_data)
        except AccountError as exc:
            messages.error(request, str(exc))
        else:
            done = (
                _("%(u)s can log in again.")
                if form.cleaned_data["active"]
                else _("%(u)s can no longer log in.")
            )
            username = get_user_model().objects.get(pk=user_id).username
            messages.success(request, done % {"u": username})
            open_sheets = 0 if form.cleaned_data["active"] else account_open_sheets_count(user_id=user_id)
            if open_sheets:
                messages.warning(
                    request,
                    ngettext(
                        "%(u)s still has %(n)d unfinished sheet: it waits for nobody until you reassign "
                        "it (Assignments, or the workload board).",
                        "%(u)s still has %(n)d unfinished sheets: they wait for nobody until you reassign "
                        "them (Assignments, or the workload board).",
                        open_sheets,
                    )
                    % {"u": username, "n": open_sheets},
                )
    return redirect("onboarding:account", user_id=user_id)


@admin_required
@require_POST
def account_unlock_view(request: AuthenticatedHttpRequest, user_id: int) -> HttpResponse:
    try:
        count = account_unlock(actor=request.user, user_id=user_id)
    except AccountError as exc:
        messages.error(request, str(exc))
    else:
        if count:
            messages.success(request, _("The login lock is lifted."))
    return redirect("onboarding:account", user_id=user_id)


@admin_required
@require_POST
def account_link_view(request: AuthenticatedHttpRequest, user_id: int) -> HttpResponse:
    try:
        link = account_link_send(actor=request.user, user_id=user_id, link_for=_link_builder(request))
    except AccountError as exc:
        messages.error(request, str(exc))
        return redirect("onboarding:account", user_id=user_id)
    return _links_page(request, None, [link])


def _invitee(uidb64: str):
    try:
        pk = urlsafe_base64_decode(uidb64).decode()
        return get_user_model().objects.filter(pk=int(pk)).first()
    except (ValueError, UnicodeDecodeError):
        return None


def _link_failures(request: HttpRequest, *, count: bool) -> RateUsage | None:
    """The unusable invitation links opened from this address in this window (one more when
    ``count``); None when the cache could not count it."""
    return rate_usage(
        request, group="invitation-link-failures", key="ip",
        limit=settings.INVITATION_LINK_FAILURE_LIMIT,
        seconds=int(settings.INVITATION_LINK_FAILURE_WINDOW.total_seconds()), count=count,
    )  # fmt: skip


def _throttled(request: HttpRequest) -> HttpResponse | None:
    """429 once this address has had ``INVITATION_LINK_FAILURE_LIMIT`` unusable
    invitation URLs within the window: nobody tries links or user ids in bulk."""
    failures = _link_failures(request, count=False)
    if failures is None or failures["count"] < settings.INVITATION_LINK_FAILURE_LIMIT:
        return None
    minutes = max(1, math.ceil(failures["time_left"] / 60))  # until this window ends
    return render(request, "onboarding/link_throttled.html", {"minutes": minutes}, status=429)


def _problem(request: HttpRequest, user, token: str) -> HttpResponse | None:
    """None when the link can be used; otherwise one page and one status, whatever the
    reason (no such user, a deactivated account, a forged, replaced, revoked, expired or used
    link), so that the answer tells nothing about which accounts exist or have a password."""
    throttled = _throttled(request)
    if throttled is not None:
        return throttled
    if user is not None and user.is_active and invitation_tokens.state(user, token) == VALID:
        return None
    _link_failures(request, count=True)
    return render(request, "onboarding/link_problem.html", status=400)


def _activate_invitee_language(request: HttpRequest, user) -> str:
    """The page in the language the admin gave for the invitee, unless the visitor chose
    one; returns the language it applied ("" when none)."""
    profile = getattr(user, "rater_profile", None)
    language = profile.language if profile is not None else ""
    if language and not request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME):
        translation.activate(language)
        request.LANGUAGE_CODE = language
        return language
    return ""


@never_cache
@require_safe  # an OPTIONS is no opening of the link: 405, not a failure counted (hostile pass 24)
def invitation_link(request: HttpRequest, uidb64: str, token: str) -> HttpResponse:
    """Check the link, then move its token into the session and off the address bar
    (it would otherwise leak through the Referer header and the browser history)."""
    problem = _problem(request, _invitee(uidb64), token)
    if problem is not None:
        return problem
    request.session[SESSION_KEY] = token
    return redirect("onboarding:set_password", uidb64=uidb64)


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def set_password_page(request: HttpRequest, uidb64: str) -> HttpResponse:
    user = _invitee(uidb64)
    problem = _problem(request, user, request.session.get(SESSION_KEY, ""))
    if problem is not None:
        return problem
    language = _activate_invitee_language(request, user)
    form = SetPasswordForm(user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        invitation_accept(user=user, password=form.cleaned_data["new_password1"])
        request.session.pop(SESSION_KEY, None)
        messages.success(
            request, _("Your password is set. Log in with your username %(u)s.") % {"u": user.username}
        )
        response = redirect("login")
        if language:  # the login page (and what follows) stays in the invitation's language
            language_cookie_set(response=response, language=language)
        return response
    return render(request, "onboarding/set_password.html", {"form": form, "invitee": user})

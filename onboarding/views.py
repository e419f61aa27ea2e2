"""Inviting people by CSV (admins) and setting a password from an invitation link (the invitee)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import SetPasswordForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.http import urlsafe_base64_decode
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from onboarding.csv_files import InviteFileError, invitees_from_csv
from onboarding.forms import InviteForm
from onboarding.models import Invitation
from onboarding.selectors import study_invitations
from onboarding.services import InvitationError, invitation_accept, invitation_link_renew, raters_invite
from onboarding.tokens import EXPIRED, VALID, invitation_tokens
from studies.models import Study
from studies.roles import admin_required

SESSION_KEY = "onboarding_invitation_link"


def _link_builder(request: HttpRequest):
    def build(uidb64: str, token: str) -> str:
        return request.build_absolute_uri(reverse("onboarding:link", args=[uidb64, token]))

    return build


@admin_required
def invite_page(request: HttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    form = InviteForm(request.POST or None, request.FILES or None)
    problems: list[str] = []
    if request.method == "POST" and form.is_valid():
        try:
            invitees = invitees_from_csv(form.cleaned_data["file"].read())
            links = raters_invite(
                study=study,
                invitees=invitees,
                actor=request.user,
                link_for=_link_builder(request),
                email=form.cleaned_data["send_email"],
            )
        except InviteFileError as exc:
            problems = exc.problems
        else:
            return render(request, "onboarding/links.html", {"study": study, "links": links})
    context = {
        "study": study,
        "form": form,
        "problems": problems,
        "invitations": study_invitations(study=study),
    }
    return render(request, "onboarding/invite.html", context, status=400 if problems or form.errors else 200)


@admin_required
@require_POST
def invitation_renew_view(request: HttpRequest, invitation_id: int) -> HttpResponse:
    invitation = get_object_or_404(Invitation.objects.select_related("study"), pk=invitation_id)
    try:
        link = invitation_link_renew(invitation_id=invitation.pk, link_for=_link_builder(request))
    except InvitationError as exc:
        messages.error(request, str(exc))
        if invitation.study is None:
            return redirect("scoring:admin_home")
        return redirect("onboarding:invite", study_id=invitation.study.pk)
    return render(request, "onboarding/links.html", {"study": invitation.study, "links": [link]})


def _invitee(uidb64: str):
    try:
        pk = urlsafe_base64_decode(uidb64).decode()
        return get_user_model().objects.filter(pk=int(pk)).first()
    except (ValueError, UnicodeDecodeError):
        return None


def _problem(request: HttpRequest, user, token: str) -> HttpResponse | None:
    """A page saying why the link cannot be used, or None when it can."""
    if user is None:
        state = "invalid"
    elif (
        user.has_usable_password() or Invitation.objects.filter(user=user, accepted_at__isnull=False).exists()
    ):
        state = "used"
    else:
        state = invitation_tokens.state(user, token)
        if state == VALID:
            return None
    status = {"used": 410, EXPIRED: 410}.get(state, 400)
    return render(request, "onboarding/link_problem.html", {"state": state}, status=status)


def _activate_invitee_language(request: HttpRequest, user) -> None:
    """The page in the language the admin gave for the invitee, unless the visitor chose one."""
    profile = getattr(user, "rater_profile", None)
    language = profile.language if profile is not None else ""
    if language and not request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME):
        translation.activate(language)
        request.LANGUAGE_CODE = language


@never_cache
def invitation_link(request: HttpRequest, uidb64: str, token: str) -> HttpResponse:
    """Check the link, then move its token into the session and off the address bar
    (it would otherwise leak through the Referer header and the browser history)."""
    problem = _problem(request, _invitee(uidb64), token)
    if problem is not None:
        return problem
    request.session[SESSION_KEY] = token
    return redirect("onboarding:set_password", uidb64=uidb64)


@never_cache
def set_password_page(request: HttpRequest, uidb64: str) -> HttpResponse:
    user = _invitee(uidb64)
    problem = _problem(request, user, request.session.get(SESSION_KEY, ""))
    if problem is not None:
        return problem
    _activate_invitee_language(request, user)
    form = SetPasswordForm(user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        invitation_accept(user=user, password=form.cleaned_data["new_password1"])
        request.session.pop(SESSION_KEY, None)
        messages.success(
            request, _("Your password is set. Log in with your username %(u)s.") % {"u": user.username}
        )
        return redirect("login")
    return render(request, "onboarding/set_password.html", {"form": form, "invitee": user})

"""The tokens page: an admin or researcher makes and revokes their own API tokens."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from api.forms import TokenForm
from api.selectors import tokens_of
from api.services.tokens import TokenLimit, token_create, token_revoke
from core.accounts.roles import researcher_required

if TYPE_CHECKING:
    from core.accounts.requests import AuthenticatedHttpRequest


def _page(
    request: AuthenticatedHttpRequest, form: TokenForm, *, plain: str = "", status: int = 200
) -> HttpResponse:
    tokens = tokens_of(user=request.user)
    context = {
        "form": form,
        "tokens": tokens,
        "plain": plain,
        "live": sum(1 for token in tokens if token.is_live),
        "limit": settings.API_TOKENS_PER_USER,
        "rate": settings.API_RATE_LIMIT_PER_MINUTE,
    }
    response = render(request, "api/tokens.html", context, status=status)
    response["Cache-Control"] = "no-store"  # the new token is on this page once
    return response


@researcher_required
def tokens_page(request: AuthenticatedHttpRequest) -> HttpResponse:
    if request.method != "POST":
        return _page(request, TokenForm())
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    data = form.cleaned_data
    try:
        new = token_create(
            user=request.user, name=data["name"], scope=data["scope"], days=data["days"], study=data["study"]
        )
    except TokenLimit as exc:
        form.add_error(None, exc.message)
        return _page(request, form, status=400)
    messages.success(request, _("Token made. Copy it now: it is not shown again."))
    return _page(request, TokenForm(), plain=new.plain)


@researcher_required
@require_POST
def token_revoke_view(request: AuthenticatedHttpRequest, token_id: int) -> HttpResponse:
    token = get_object_or_404(tokens_of(user=request.user), pk=token_id)  # another's token: not found
    token_revoke(token=token, user=request.user)
    messages.success(request, _("Token revoked."))
    return redirect("api:tokens")

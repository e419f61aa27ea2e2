"""Broken responses: a rater flags the response on the scoring page; admins see the
flags and withdraw the response from the study or dismiss the flag."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from core.accounts.roles import admin_required, rater_required
from scoring.forms import FlagFilterForm, FlagForm, FlagResolveForm
from scoring.models import ResponseFlag
from scoring.selectors import rater_assignment_get
from scoring.selectors.flags import flags_list
from scoring.services.flags import FlagError, response_flag_create, response_flag_resolve
from studies.params import id_param

if TYPE_CHECKING:
    from core.accounts.requests import AuthenticatedHttpRequest


@require_POST
@rater_required
def response_flag(request: AuthenticatedHttpRequest, blind_code: str) -> HttpResponse:
    assignment = rater_assignment_get(user=request.user, blind_code=blind_code)
    form = FlagForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(str(e) for errors in form.errors.values() for e in errors))
        return redirect("scoring:sheet", blind_code=blind_code)
    try:
        response_flag_create(assignment=assignment, note=form.cleaned_data["note"])
    except FlagError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Thank you: the response is reported; an administrator will look at it."))
    return redirect("scoring:sheet", blind_code=blind_code)


@admin_required
@require_http_methods(["GET", "POST"])
def flags_page(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The flags, filtered and paged; dismissing or withdrawing comes back to the same list."""
    filter_form = FlagFilterForm(request.GET, auto_id="filter_%s")
    page = id_param(request.GET.get("page"))
    here = "&".join(part for part in (filter_form.kept_query(), f"page={page}" if page else "") if part)
    if request.method == "POST":
        form = FlagResolveForm(request.POST)
        if form.is_valid():
            try:
                response_flag_resolve(
                    flag_id=form.cleaned_data["flag"],
                    actor=request.user,
                    withdraw=form.cleaned_data["action"] == "withdraw",
                    note=form.cleaned_data["note"],
                )
            except (FlagError, ResponseFlag.DoesNotExist) as exc:
                messages.error(request, getattr(exc, "message", _("No such flag.")))
            else:
                messages.success(request, _("Done."))
                return redirect(f"{reverse('scoring:flags')}?{here}" if here else reverse("scoring:flags"))
        else:
            messages.error(request, _("Choose what to do with the flag."))
    context = {
        "page": flags_list(filters=filter_form.flag_filters(), page=request.GET.get("page")),
        "filter_form": filter_form,
        "page_query": filter_form.kept_query(),
        "here": here,
    }
    return render(request, "scoring/flags.html", context)

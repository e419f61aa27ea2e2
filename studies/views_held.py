"""The review gate's pages: the held responses (filtered, paged), and releasing, redacting and
withdrawing them, one at a time or in bulk."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from core.accounts.roles import admin_required
from studies.held_forms import HeldBulkForm, HeldFilterForm
from studies.params import id_param
from studies.review import redaction_text
from studies.selectors import held_responses_review, responses_held_matching
from studies.services.review import (
    ReviewError,
    redaction_words,
    response_release,
    response_text_redact,
    response_withdraw,
    responses_release,
    responses_withdraw,
)

if TYPE_CHECKING:
    from core.accounts.requests import AuthenticatedHttpRequest

# what the page's address may carry back after an action: its filters and page
_KEPT = ("study", "scenario", "model", "condition", "reason", "q", "page")


@admin_required
def held_responses_page(request: HttpRequest) -> HttpResponse:
    """Responses held for review, with their text and parse result, filtered and paged: release
    them to raters or withdraw them, one at a time or in bulk."""
    form = HeldFilterForm(request.GET)
    filters = form.held_filters()
    held = held_responses_review(
        filters=filters, page=request.GET.get("page"), whole=id_param(request.GET.get("whole"))
    )
    back = QueryDict(mutable=True)
    for key in _KEPT:
        if value := request.GET.get(key):
            back[key] = value[:60]
    context = {
        "form": form,
        "study": filters.study,
        "rows": held.rows,
        "page": held.page,
        "back": back.urlencode(),
        "page_query": urlencode([(key, value) for key, value in back.items() if key != "page"]),
    }
    return render(request, "studies/held.html", context)


def _back_to_held(request: HttpRequest) -> HttpResponse:
    """The held responses page again, with the filters and page the action was made from (the
    nearest page, when it has emptied)."""
    sent = QueryDict((request.POST.get("back") or "")[:1000])
    query = {key: sent[key][:60] for key in _KEPT if sent.get(key)}
    return redirect(reverse("studies:held_responses", query=query))


@admin_required
@require_POST
def held_responses_bulk(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Release or withdraw the ticked held responses, or all that the page's filters match: all
    or none, each audited."""
    filters_form = HeldFilterForm(QueryDict((request.POST.get("back") or "")[:1000]))
    form = HeldBulkForm(request.POST)
    if not form.is_valid() or not filters_form.is_valid():
        for error in [
            *form.non_field_errors(),
            *(f"{n}: {e[0]}" for n, e in form.errors.items() if n != "__all__"),
        ]:
            messages.error(request, error)
        if not filters_form.is_valid():
            messages.error(request, _("The page's filters were refused; nothing was done."))
        return _back_to_held(request)
    data = form.cleaned_data
    if data["scope"] == HeldBulkForm.MATCHING:
        ids = list(responses_held_matching(filters=filters_form.held_filters()).values_list("pk", flat=True))
        if len(ids) != data["expected"]:
            messages.error(
                request,
                _(
                    "%(now)d held responses match now, not %(seen)d as the page showed; nothing was done. Look again."
                )
                % {"now": len(ids), "seen": data["expected"]},
            )
            return _back_to_held(request)
    else:
        ids = [response.pk for response in data["ids"]]
    try:
        if data["action"] == HeldBulkForm.RELEASE:
            released = responses_release(response_ids=ids, actor=request.user)
            made = sum(r.assignments for r in released)
            messages.success(
                request,
                ngettext(
                    "%(n)d response released; %(made)d assignments made for raters.",
                    "%(n)d responses released; %(made)d assignments made for raters.",
                    len(released),
                )
                % {"n": len(released), "made": made},
            )
        else:
            withdrawn = responses_withdraw(
                response_ids=ids, actor=request.user, reason=data["withdraw_reason"]
            )
            messages.success(
                request,
                ngettext(
                    "%(n)d response withdrawn: no rater will get it.",
                    "%(n)d responses withdrawn: no rater will get them.",
                    len(withdrawn),
                )
                % {"n": len(withdrawn)},
            )
    except ReviewError as exc:
        messages.error(request, exc.message)
    return _back_to_held(request)


@admin_required
@require_POST
def response_release_view(request: AuthenticatedHttpRequest, response_id: int) -> HttpResponse:
    try:
        released = response_release(response_id=response_id, actor=request.user)
    except ReviewError as exc:
        messages.error(request, exc.message)
        return _back_to_held(request)
    research_id = released.response.research_id
    if released.assignments:
        messages.success(
            request,
            ngettext(
                "%(id)s released: %(n)d rater of its scenario group's pair has it in their queue.",
                "%(id)s released: %(n)d raters of its scenario group's pair have it in their queue.",
                released.assignments,
            )
            % {"id": research_id, "n": released.assignments},
        )
    else:
        messages.success(
            request,
            _(
                "%(id)s released. Its scenario and condition have no rater pair yet: it is assigned "
                "when a pair is."
            )
            % {"id": research_id},
        )
    return _back_to_held(request)


@admin_required
@require_POST
def response_redact_view(request: AuthenticatedHttpRequest, response_id: int) -> HttpResponse:
    """Redact the names the blind-text check found (and the admin's further words) from a
    held response's text: a new, audited version of its text; it stays held."""
    try:
        words = redaction_words((request.POST.get("words") or "")[:4000])
        redacted = response_text_redact(response_id=response_id, actor=request.user, words=words)
    except ReviewError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request,
            _("%(id)s: %(redaction)s Read it again, then release it.")
            % {
                "id": redacted.response.research_id,
                "redaction": redaction_text(
                    names=redacted.names, steps=redacted.steps, task=redacted.response.study.task_kind
                ),
            },
        )
    return _back_to_held(request)


@admin_required
@require_POST
def response_withdraw_view(request: AuthenticatedHttpRequest, response_id: int) -> HttpResponse:
    reason = (request.POST.get("reason") or "").strip()[:500]
    try:
        response = response_withdraw(response_id=response_id, actor=request.user, reason=reason)
    except ReviewError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("%(id)s withdrawn: no rater will get it.") % {"id": response.research_id})
    return _back_to_held(request)

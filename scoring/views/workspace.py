"""The rater workspace: the scoring page, autosave and submit (JSON endpoints).

Every URL is addressed by the response's blind code and resolves only to the
requesting rater's own active assignment (anything else: 404). Writes go through
``scoring.services.sheets`` only; the server's validation and totals are the
authority, the page's own arithmetic is for instant feedback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from core.accounts.roles import rater_required
from core.rate_limits import RateUsage, rate_usage
from scoring.forms import ActiveTimeForm, JsonBodyError, SaveBatchForm, SubmitForm, json_body
from scoring.models import ScoreSheet, SheetLevel
from scoring.selectors import (
    rater_assignment_for_write,
    rater_assignment_get,
    rater_has_training_code,
    response_items_by_step,
)
from scoring.services.active_time import sheet_active_time_add
from scoring.services.sheets import (
    BatchReused,
    InvalidEntries,
    OtherSheet,
    SaveResult,
    SheetError,
    SheetIncomplete,
    SheetLocked,
    VersionConflict,
    sheet_apply_changes,
    sheet_open,
    sheet_open_entries,
    sheet_submit,
)
from scoring.views.sheet_context import dimension_sheet_context, sheet_page_context
from scoring.views.sheet_texts import missing_list
from studies.parsing import ITEM_STEPS
from studies.rubric import load_rubric

if TYPE_CHECKING:
    from core.accounts.requests import AuthenticatedHttpRequest


def _lang(request: HttpRequest) -> str:
    return getattr(request, "LANGUAGE_CODE", None) or get_language() or "en"


def _bad_request(message: str, errors: list | None = None) -> JsonResponse:
    return JsonResponse(
        {"ok": False, "error": "invalid", "message": message, "errors": errors or []}, status=422
    )


def _form_errors(form) -> list[dict]:
    return [{"path": name, "message": str(error)} for name, errors in form.errors.items() for error in errors]


def _existing_sheet(assignment) -> ScoreSheet | None:
    try:
        return assignment.sheet  # fetched with the assignment
    except ScoreSheet.DoesNotExist:
        return None


@never_cache
@require_GET
@rater_required
def sheet_page(request: AuthenticatedHttpRequest, blind_code: str) -> HttpResponse:
    try:
        assignment = rater_assignment_get(user=request.user, blind_code=blind_code)
    except Http404:
        if rater_has_training_code(user=request.user, blind_code=blind_code):
            # a training response is never live: say where it is scored instead of a bare 404
            return render(request, "scoring/training_elsewhere.html", {"code": blind_code}, status=409)
        raise
    items = response_items_by_step(response=assignment.response)
    # a first open creates the sheet from the item counts read here, and the page shows
    # the entries it created without reading them back
    sheet, entries = sheet_open_entries(
        assignment=assignment,
        actor=request.user,
        item_counts={step: len(texts) for step, texts in items.items() if step in ITEM_STEPS},
    )
    if sheet.level == SheetLevel.DIMENSIONS:  # imported from the study's Excel layout: nothing to edit
        context = dimension_sheet_context(sheet=sheet, code=blind_code, lang=_lang(request))
        return render(request, "scoring/sheet_dimensions.html", context)
    context = sheet_page_context(
        sheet=sheet, assignment=assignment, lang=_lang(request), items=items, entries=entries
    )
    return render(request, "scoring/sheet.html", context)


@never_cache
@require_POST
@rater_required
def sheet_save(request: AuthenticatedHttpRequest, blind_code: str) -> JsonResponse:
    """Autosave: apply one batch of changes. 200 with the authoritative totals,
    409 on a version conflict or a batch id re-used with other changes, 423 when
    submitted, 422 on refused values, 429 (with Retry-After) past the ceiling of
    batches of the account per second; 404 for a code that is not the rater's before anything else.
    Every save, live or training (``sheet_save_for``), takes the one path of ``_sheet_write``."""
    assignment = rater_assignment_for_write(user=request.user, blind_code=blind_code)  # 404 first
    return _sheet_write(request, assignment, _form(request, SaveBatchForm))


def sheet_save_for(request: AuthenticatedHttpRequest, assignment) -> JsonResponse:
    """The autosave of one of the requester's assignments (live or training)."""
    return _sheet_write(request, assignment, _form(request, SaveBatchForm))


@never_cache
@require_POST
@rater_required
def sheet_submit_view(request: AuthenticatedHttpRequest, blind_code: str) -> JsonResponse:
    """Submit a complete sheet; 400 lists what is missing (with the controls' ids)."""
    assignment = rater_assignment_for_write(user=request.user, blind_code=blind_code)  # 404 first
    return sheet_submit_for(request, assignment, redirect=reverse("scoring:sheet", args=[blind_code]))


def sheet_submit_for(request: AuthenticatedHttpRequest, assignment, *, redirect: str) -> JsonResponse:
    """The submit of one of the requester's assignments; ``redirect``: where the page goes next."""
    return _sheet_write(request, assignment, _form(request, SubmitForm), redirect=redirect)


def _form(request: HttpRequest, form_class: type[SaveBatchForm] | type[SubmitForm]):
    """The request's body in ``form_class``, validated; or the 422 answer to a body that
    is not JSON or not a well-formed request."""
    try:
        form = form_class(data=json_body(request.body))
    except JsonBodyError as exc:
        return _bad_request(exc.message)
    if not form.is_valid():
        malformed = (
            _("Malformed save request.") if form_class is SaveBatchForm else _("Malformed submit request.")
        )
        return _bad_request(malformed, _form_errors(form))
    return form


def _sheet_write(
    request: AuthenticatedHttpRequest,
    assignment,
    form: SaveBatchForm | SubmitForm | JsonResponse,
    *,
    redirect: str = "",
) -> JsonResponse:
    """A save or a submit (by the form's class) of one of the requester's assignments: a
    malformed request answered, a save counted against the ceiling of saves, the sheet opened
    (only for a well-formed request), a request made on another sheet refused, then the write,
    and its refusal or result answered."""
    if isinstance(form, JsonResponse):
        return form
    if isinstance(form, SaveBatchForm) and (throttled := _throttled(request)):
        return throttled
    sheet = _existing_sheet(assignment) or sheet_open(assignment=assignment, actor=request.user)
    if form.cleaned_data["sheet"] != sheet.pk:
        # a page left open by another rater before a change of user in this browser
        return _save_refused(OtherSheet(sheet.pk))
    data = form.cleaned_data
    try:
        if isinstance(form, SaveBatchForm):
            result = sheet_apply_changes(
                sheet_id=sheet.pk, actor=request.user, changes=data["changes"],
                expected_version=data["expected_version"], batch_id=data["batch_id"],
            )  # fmt: skip
            return _saved(request, result)
        sheet = sheet_submit(sheet_id=sheet.pk, actor=request.user, expected_version=data["expected_version"])
    except SheetIncomplete as exc:
        missing = missing_list(
            rubric=load_rubric(sheet.rubric_version), missing=exc.missing, lang=_lang(request)
        )
        return JsonResponse(
            {"ok": False, "error": "incomplete", "message": exc.message, "missing": missing}, status=400
        )
    except SheetError as exc:
        return _save_refused(exc)
    return JsonResponse(
        {
            "ok": True,
            "status": sheet.status,
            "version": sheet.version,
            "overall": sheet.overall,
            "redirect": redirect,
        }
    )


def _throttled(request: HttpRequest) -> JsonResponse | None:
    """429 with Retry-After past ``SHEET_SAVES_PER_SECOND`` batches of this account in this
    second; nothing is written and the page sends the batch again."""
    usage = sheet_saves_count(request)
    if usage is None or not usage["should_limit"]:
        return None
    message = _("Too many saves in a short time; this one will be sent again in a moment.")
    response = JsonResponse({"ok": False, "error": "throttled", "message": message}, status=429)
    response["Retry-After"] = str(max(1, usage["time_left"]))
    return response


def sheet_saves_count(request: HttpRequest) -> RateUsage | None:
    """Count one save batch of the requesting account against the ceiling, so that no client
    can flood the audit trail (None: no ceiling, or the cache is away, which never stops a
    save). Keyed by the account alone: all its sheets share one budget (a hostile pass saved
    on seven sheets at once at seven times the ceiling), and nobody can use up another
    rater's."""
    limit = settings.SHEET_SAVES_PER_SECOND
    if limit <= 0:
        return None
    return rate_usage(request, group="sheet-saves", key="user", limit=limit, seconds=1, count=True)


def _save_refused(exc: SheetError) -> JsonResponse:
    """The answer to a save (or submit) the sheet refused; nothing was written."""
    if isinstance(exc, OtherSheet):
        return JsonResponse({"ok": False, "error": "other_sheet", "message": exc.message}, status=409)
    if isinstance(exc, BatchReused):
        return JsonResponse({"ok": False, "error": "batch_reused", "message": exc.message}, status=409)
    if isinstance(exc, VersionConflict):
        return JsonResponse(
            {"ok": False, "error": "conflict", "message": exc.message, "version": exc.current_version},
            status=409,
        )
    if isinstance(exc, SheetLocked):
        return JsonResponse({"ok": False, "error": "locked", "message": exc.message}, status=423)
    if isinstance(exc, InvalidEntries):
        return _bad_request(
            _("Some values were refused; nothing was saved."),
            [{"path": e.path, "message": e.message} for e in exc.errors],
        )
    raise exc


def _saved(request: HttpRequest, result: SaveResult) -> JsonResponse:
    rubric = load_rubric(result.sheet.rubric_version)
    return JsonResponse(
        {
            "ok": True,
            "version": result.version,
            "replayed": result.replayed,
            "changed": result.changed,
            "saved_at": timezone.localtime(result.saved_at).strftime("%H:%M:%S"),
            "totals": result.totals.as_dict(),
            "missing": missing_list(rubric=rubric, missing=result.totals.missing, lang=_lang(request)),
        }
    )


@never_cache
@require_POST
@rater_required
def sheet_active_time(request: AuthenticatedHttpRequest, blind_code: str) -> JsonResponse:
    """The page's active-time report (about once a minute, and when it is left)."""
    return sheet_active_time_for(
        request, rater_assignment_for_write(user=request.user, blind_code=blind_code)
    )


def sheet_active_time_for(request: HttpRequest, assignment) -> JsonResponse:
    """An active-time report for ``assignment``'s sheet (a live or a training one)."""
    try:
        form = ActiveTimeForm(data=json_body(request.body))
    except JsonBodyError as exc:
        return _bad_request(exc.message)
    if not form.is_valid():
        return _bad_request(_("Malformed time report."), _form_errors(form))
    sheet = _existing_sheet(assignment)
    if sheet is None or form.cleaned_data["sheet"] != sheet.pk:
        message = _("This time report was made for another sheet; nothing was recorded.")
        return JsonResponse({"ok": False, "error": "other_sheet", "message": message}, status=409)
    added = sheet_active_time_add(sheet_id=sheet.pk, seconds=form.cleaned_data["seconds"])
    return JsonResponse({"ok": added})

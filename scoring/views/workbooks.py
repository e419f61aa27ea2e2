"""Offline workbooks: raters download and upload their own; admins do it for any rater."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlencode

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from core.accounts.roles import admin_required, rater_required
from scoring.models import ScoringGroup
from scoring.services.workbooks import WorkbookError, workbook_export, workbook_import
from scoring.workbooks.selectors import workbook_units_get, workbook_units_page
from studies.models import Study
from studies.params import id_param

if TYPE_CHECKING:
    from core.accounts.requests import AuthenticatedHttpRequest

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
UPLOAD_SLOT_SECONDS = 120  # held at most this long if a web process dies while reading


class UploadForm(forms.Form):
    file = forms.FileField(label=gettext_lazy("Filled workbook (.xlsx)"))
    busy = False  # another workbook of the account was being read: not read (429)

    def clean_file(self):
        upload = self.cleaned_data["file"]
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if upload.size > limit:
            raise forms.ValidationError(
                _("The file is too large (%(size)s bytes; the limit is %(limit)s bytes).")
                % {"size": upload.size, "limit": limit}
            )
        return upload


def _xlsx(name: str, data: bytes) -> HttpResponse:
    response = HttpResponse(data, content_type=XLSX)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "no-store"
    return response


def _status(form: UploadForm, problems: list) -> int:
    """429 while another upload of the account is read, 400 when the upload was refused (the
    page lists why), else 200."""
    if form.busy:
        return 429
    return 400 if problems or form.errors else 200


def _upload(request: AuthenticatedHttpRequest, *, rater) -> tuple[UploadForm, list, bool]:
    """A workbook page's upload: the form, the problems of a workbook that was refused, and
    whether a posted workbook was stored (the page then redirects)."""
    if request.method != "POST":
        return UploadForm(), [], False
    form = UploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return form, [], False
    # one workbook of an account read at a time: reading one holds a web thread for seconds, and
    # eight at once from one rater held them all (hostile pass 16); a cache that is away (None)
    # does not stop uploads
    slot = f"workbook-upload:{request.user.pk}"
    if cache.add(slot, 1, timeout=UPLOAD_SLOT_SECONDS) is False:
        form.add_error(
            "file", _("Another workbook of yours is still being read: send this one when it is done.")
        )
        form.busy = True
        return form, [], False
    try:
        data = form.cleaned_data["file"].read()
        result = workbook_import(data=data, actor=request.user, rater=rater)
    finally:
        cache.delete(slot)
    if result.ok:
        messages.success(
            request,
            ngettext(
                "Stored and submitted %(n)s sheet from the workbook.",
                "Stored and submitted %(n)s sheets from the workbook.",
                len(result.stored),
            )
            % {"n": len(result.stored)},
        )
    return form, result.problems, not result.problems


@rater_required
def rater_workbooks(request: AuthenticatedHttpRequest) -> HttpResponse:
    form, problems, stored = _upload(request, rater=request.user)
    if stored:
        return redirect("scoring:rater_workbooks")
    units = workbook_units_get(rater=request.user)
    return render(
        request,
        "scoring/workbooks/rater.html",
        {"units": units, "form": form, "problems": problems},
        status=_status(form, problems),
    )


@rater_required
def rater_workbook_download(request: AuthenticatedHttpRequest, key: str) -> HttpResponse:
    unit = next((u for u in workbook_units_get(rater=request.user) if u.key == key), None)
    if unit is None:
        raise Http404
    group = ScoringGroup.objects.select_related("study", "scenario").get(pk=unit.group_id)
    try:
        name, data = workbook_export(rater=request.user, group=group, lang=request.LANGUAGE_CODE)
    except WorkbookError as exc:
        messages.info(request, exc.message)
        return redirect("scoring:rater_workbooks")
    return _xlsx(name, data)


# rows of the admin's workbook list a page: a 10x study has 1,200 (a rater and a scenario each)
WORKBOOKS_PER_PAGE = 100


@admin_required
def admin_workbooks(request: AuthenticatedHttpRequest) -> HttpResponse:
    form, problems, stored = _upload(request, rater=None)
    if stored:
        return redirect("scoring:admin_workbooks")
    study_id = id_param(request.GET.get("study"))
    study = None if study_id is None else Study.objects.filter(pk=study_id).first()
    search = (request.GET.get("q") or "").strip()[:60]
    shown = workbook_units_page(
        study=study, search=search, page=request.GET.get("page"), per_page=WORKBOOKS_PER_PAGE
    )
    kept = [(k, v) for k, v in (("study", study.pk if study else ""), ("q", search)) if v]
    context = {
        "units": shown.object_list,
        "page": shown,
        "search": search,
        "page_query": urlencode(kept),
        "form": form,
        "problems": problems,
        "studies": Study.objects.order_by("name"),
        "study": study,
    }
    return render(request, "scoring/workbooks/admin.html", context, status=_status(form, problems))


@admin_required
def admin_workbook_download(request: HttpRequest, rater_id: int, group_id: int) -> HttpResponse:
    rater = get_object_or_404(get_user_model(), pk=rater_id)
    group = get_object_or_404(ScoringGroup.objects.select_related("study", "scenario"), pk=group_id)
    try:
        name, data = workbook_export(rater=rater, group=group)
    except WorkbookError as exc:
        messages.info(request, exc.message)
        return redirect("scoring:admin_workbooks")
    return _xlsx(name, data)

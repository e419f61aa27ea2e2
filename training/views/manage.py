"""The admin's training page: the study's training set, its rule, and who qualified."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core.accounts.roles import admin_required
from studies.models import Study
from training.forms import (
    GoldResponseForm,
    OverrideForm,
    RetestSettingsForm,
    TrainingSettingsForm,
)
from training.selectors.training import training_admin_overview
from training.services.qualification import (
    qualification_override,
    qualification_override_revoke,
    training_settings_update,
)
from training.services.retest import retest_settings_update
from training.services.training_set import TrainingError, training_response_add, training_set_add_default

if TYPE_CHECKING:
    from core.accounts.requests import AuthenticatedHttpRequest


def admin_study(request: HttpRequest) -> tuple[list[Study], Study | None]:
    studies = list(Study.objects.order_by("name"))
    wanted = request.GET.get("study") or request.POST.get("study")
    chosen = next((s for s in studies if str(s.pk) == wanted), studies[0] if studies else None)
    return studies, chosen


def _back(study: Study) -> HttpResponse:
    return redirect(f"{reverse('training:manage')}?study={study.pk}")


@admin_required
def training_manage(request: HttpRequest) -> HttpResponse:
    studies, study = admin_study(request)
    context: dict = {"studies": studies, "study": study}
    if study is not None:
        overview = training_admin_overview(study=study)
        context.update(
            overview=overview,
            gold_form=GoldResponseForm(),
            settings_form=TrainingSettingsForm(
                initial={
                    "threshold": overview["settings"].threshold,
                    "required_sheets": overview["settings"].required_sheets,
                }
            ),
            override_form=OverrideForm(),
            retest_form=RetestSettingsForm(
                initial={
                    "retest_percent": overview["settings"].retest_percent,
                    "retest_after_days": overview["settings"].retest_after_days,
                    "retest_alarm_below": overview["settings"].retest_alarm_below,
                }
            ),
        )
    return render(request, "training/manage.html", context)


def _refused(request: HttpRequest, study: Study, form) -> HttpResponse:
    for errors in form.errors.values():
        for error in errors:
            messages.error(request, error)
    return _back(study)


def _post(request: HttpRequest, form_class, action) -> HttpResponse:
    """Validate the form, run ``action(study, cleaned_data)`` (a service call that returns
    the success message or raises TrainingError), and go back to the study's page."""
    _studies, study = admin_study(request)
    if study is None:
        return redirect("training:manage")
    form = form_class(request.POST)
    if not form.is_valid():
        return _refused(request, study, form)
    try:
        messages.success(request, action(study, form))
    except TrainingError as exc:
        messages.error(request, exc.message)
    return _back(study)


def _added(training) -> str:
    return _("%(id)s is in the training set (%(note)s).") % {
        "id": training.source,
        "note": training.reference_label,
    }


@require_POST
@admin_required
def training_gold_add(request: AuthenticatedHttpRequest) -> HttpResponse:
    def add(study: Study, form: GoldResponseForm) -> str:
        return _added(
            training_response_add(
                study=study,
                research_id=form.cleaned_data["research_id"],
                rater_codes=form.rater_codes(),
                actor=request.user,
            )
        )

    return _post(request, GoldResponseForm, add)


@require_POST
@admin_required
def training_default_add(request: AuthenticatedHttpRequest) -> HttpResponse:
    return _post(
        request,
        forms.Form,
        lambda study, _form: _added(training_set_add_default(study=study, actor=request.user)),
    )


@require_POST
@admin_required
def training_settings(request: AuthenticatedHttpRequest) -> HttpResponse:
    def save(study: Study, form: TrainingSettingsForm) -> str:
        training_settings_update(
            study=study,
            threshold=form.cleaned_data["threshold"],
            required_sheets=form.cleaned_data["required_sheets"],
            actor=request.user,
        )
        return _("Training settings saved; every trainee's qualification was recomputed.")

    return _post(request, TrainingSettingsForm, save)


@require_POST
@admin_required
def training_retest(request: AuthenticatedHttpRequest) -> HttpResponse:
    def save(study: Study, form: RetestSettingsForm) -> str:
        retest_settings_update(
            study=study,
            percent=form.cleaned_data["retest_percent"],
            after_days=form.cleaned_data["retest_after_days"],
            alarm_below=form.cleaned_data["retest_alarm_below"],
            actor=request.user,
        )
        return _("Test-retest probes saved; the workers serve those due within the hour.")

    return _post(request, RetestSettingsForm, save)


@require_POST
@admin_required
def training_override(request: AuthenticatedHttpRequest) -> HttpResponse:
    def change(study: Study, form: OverrideForm) -> str:
        data = form.cleaned_data
        service = qualification_override_revoke if data["revoke"] else qualification_override
        service(rater=data["rater"], study=study, actor=request.user, reason=data["reason"])
        return _("Saved, with your reason.")

    return _post(request, OverrideForm, change)

"""Consistency dashboard, drill-downs, the calibrator's comparison and the study's agreement settings.

Admins and researchers see everything. A calibrator sees the comparison of the
three sheets only after submitting their own, by blind code, with the primary
raters shown as "Rater A"/"Rater B" and no model, condition or research ID.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.forms import Form
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from calibration.forms import (
    AgreementSettingsForm,
    CalibratorForm,
    DecisionReasonForm,
    ResponseFilterForm,
    ScoreImportForm,
)
from calibration.selectors.agreement import (
    agreement_groups,
    agreement_responses,
    agreement_studies,
    calibration_assignments_of,
    calibration_queue,
    calibrator_assignment_for,
    calibrator_choices,
    consistency_table,
    response_comparison,
)
from calibration.selectors.calibrators import calibrators_who_can_log_in
from calibration.selectors.facets import study_facets
from calibration.selectors.responses import response_history, study_responses_list
from calibration.services.agreement_settings import PAPER_NOMINAL_THRESHOLD, study_agreement_settings_update
from calibration.services.calibration import CalibrationError, calibration_assign
from calibration.services.decisions import calibration_decision_record
from calibration.statistics import ICC_FORM_DESCRIPTIONS, ICC_FORMS
from core.accounts.roles import admin_required, is_admin, rater_required, researcher_required
from scoring.models import Assignment
from scoring.services.release_import import release_workbooks_import
from scoring.services.score_import import ScoreImportError, scores_import_upload
from studies.chosen import study_chosen
from studies.models import Response, Scenario, Study
from studies.rubric.cgpst import version_is_cgpst
from studies.views import import_page_done, import_page_render

if TYPE_CHECKING:
    from core.accounts.requests import AuthenticatedHttpRequest


@researcher_required
def agreement_dashboard(request: AuthenticatedHttpRequest) -> HttpResponse:
    studies = agreement_studies()
    study = study_chosen(request, studies=studies)
    context: dict[str, Any] = {"studies": studies, "study": study}
    if study is not None:
        units = agreement_groups(study=study)
        waiting = sum(u["unassigned"] for u in units if u["group"] is None)
        context.update(
            table6=consistency_table(study=study),
            facets=None if request.htmx else study_facets(study=study),  # the poll renders Table 6 only
            units=units,
            waiting=waiting,
            # routing found nobody: say why where the admin looks, instead of assigning
            no_calibrator=bool(waiting) and not calibrators_who_can_log_in(),
        )
    template = "calibration/dashboard.html"
    if request.htmx and study is not None:
        template += "#table6"
    return render(request, template, context)


@researcher_required
def agreement_scenario(request: AuthenticatedHttpRequest, study_id: int, scenario_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    scenario = get_object_or_404(Scenario, pk=scenario_id)
    context = {
        "study": study,
        "scenario": scenario,
        "units": agreement_groups(study=study, scenario_id=scenario.pk),
        "responses": agreement_responses(study=study, scenario_id=scenario.pk),
        "forms": [(name, ICC_FORM_DESCRIPTIONS[name]) for name in ICC_FORMS],
        "cgpst": version_is_cgpst(study.rubric_version),  # the release script's PCC: CGPST's sheet
    }
    return render(request, "calibration/scenario.html", context)


@researcher_required
def agreement_response(request: AuthenticatedHttpRequest, response_id: int) -> HttpResponse:
    response = get_object_or_404(
        Response.objects.select_related("study", "scenario", "model", "condition"), pk=response_id
    )
    admin = is_admin(request.user)
    choices = calibrator_choices(response=response) if admin else []
    context = {
        "response": response,
        "study": response.study,
        "cmp": response_comparison(response=response, identities=True),
        "is_admin_view": admin,
        "calibrator_form": CalibratorForm(choices=choices) if choices else None,
        "reason_form": DecisionReasonForm(),
    }
    if admin:  # the response's admin view: every assignment with its sheet, and its history
        context["assignments"] = (
            Assignment.objects.filter(response=response)
            .select_related("rater__rater_profile", "sheet", "group")
            .order_by("archived_at", "role", "pk")
        )
        context["history"] = response_history(response=response)
    return render(request, "calibration/response.html", context)


@admin_required
def study_responses(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    """A study's responses with filters; each row opens the response's admin view."""
    study = get_object_or_404(Study, pk=study_id)
    form = ResponseFilterForm(request.GET or None, study=study)
    rows = study_responses_list(study=study, filters=form.filters())
    context = {"study": study, "form": form, "rows": rows[:1000], "total": rows.count()}
    return render(request, "calibration/study_responses.html", context)


def _response_action(
    request: AuthenticatedHttpRequest,
    *,
    response_id: int,
    form: Form,
    action: Callable[[dict[str, Any]], object],
    done: str,
    invalid: str,
) -> HttpResponse:
    """An admin's action on a response from its agreement page: the form checked, the
    action run (a :class:`CalibrationError` is the message shown), back to the page."""
    if form.is_valid():
        try:
            action(form.cleaned_data)
        except CalibrationError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(request, done)
    else:
        messages.error(request, invalid)
    return redirect("calibration:agreement_response", response_id=response_id)


@require_POST
@admin_required
def calibration_assign_view(request: AuthenticatedHttpRequest, response_id: int) -> HttpResponse:
    response = get_object_or_404(Response, pk=response_id)

    def assign(data: dict[str, Any]) -> None:
        calibrator = get_user_model().objects.filter(pk=data["calibrator"]).first()
        if calibrator is None:
            raise CalibrationError(_("Unknown user."))
        calibration_assign(response_id=response.pk, calibrator=calibrator, actor=request.user)

    return _response_action(
        request,
        response_id=response.pk,
        form=CalibratorForm(request.POST, choices=calibrator_choices(response=response)),
        action=assign,
        done=_("Calibrator assigned."),
        invalid=_("Choose a calibrating rater."),
    )


@require_POST
@admin_required
def calibration_reason_view(request: AuthenticatedHttpRequest, response_id: int) -> HttpResponse:
    response = get_object_or_404(Response, pk=response_id)
    return _response_action(
        request,
        response_id=response.pk,
        form=DecisionReasonForm(request.POST),
        action=lambda data: calibration_decision_record(
            response_id=response.pk, actor=request.user, reason=data["reason"]
        ),
        done=_("Reason saved."),
        invalid=_("Write a short reason."),
    )


@rater_required
def my_calibrations(request: AuthenticatedHttpRequest) -> HttpResponse:
    return render(
        request, "calibration/my_calibrations.html", {"items": calibration_queue(user=request.user)}
    )


@rater_required
def calibration_compare(request: AuthenticatedHttpRequest, blind_code: str) -> HttpResponse:
    assignment = calibrator_assignment_for(user=request.user, blind_code=blind_code)
    if assignment is None:
        if calibration_assignments_of(user=request.user, blind_code=blind_code).exists():
            raise PermissionDenied(_("The comparison opens after you submit your own sheet."))
        raise Http404
    response = assignment.response
    form = DecisionReasonForm()
    if request.method == "POST":
        form = DecisionReasonForm(request.POST)
        if form.is_valid():
            try:
                calibration_decision_record(
                    response_id=response.pk, actor=request.user, reason=form.cleaned_data["reason"]
                )
            except CalibrationError as exc:
                messages.error(request, exc.message)
            else:
                messages.success(request, _("Reason saved."))
                return redirect("calibration:calibration_compare", blind_code=blind_code)
    context = {
        "cmp": response_comparison(response=response, identities=False, code=assignment.blind_code),
        "reason_form": form,
    }
    return render(request, "calibration/compare.html", context)


@admin_required
def study_agreement_settings(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    form = AgreementSettingsForm(instance=Study.objects.get(pk=study.pk))
    if request.method == "POST":
        data = request.POST.copy()
        if "use_paper_threshold" in data:
            data["agreement_threshold"] = str(PAPER_NOMINAL_THRESHOLD)
        form = AgreementSettingsForm(data, instance=Study.objects.get(pk=study.pk))
        if form.is_valid():
            try:
                report = study_agreement_settings_update(
                    study_id=study.pk,
                    actor=request.user,
                    threshold=form.cleaned_data["agreement_threshold"],
                    headline_icc=form.cleaned_data["headline_icc"],
                    final_score_rule=form.cleaned_data["final_score_rule"],
                    level_ccc_below=form.cleaned_data["level_ccc_below"],
                    level_total_over=form.cleaned_data["level_total_over"],
                )
            except CalibrationError as exc:
                messages.error(request, exc.message)
            else:
                messages.success(
                    request,
                    _(
                        "Saved. %(flagged)d of %(scored)d scored responses are below the threshold; "
                        "%(routed)d new calibration assignment(s), %(archived)d unstarted one(s) withdrawn."
                    )
                    % {
                        "flagged": report.flagged,
                        "scored": report.determined,
                        "routed": len(report.routed),
                        "archived": len(report.archived),
                    },
                )
                return redirect(f"{reverse('calibration:agreement_dashboard')}?study={study.pk}")
    context = {"study": study, "form": form, "paper_threshold": PAPER_NOMINAL_THRESHOLD}
    return render(request, "calibration/settings.html", context)


@admin_required
def scores_import_page(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    """Upload a data_A.json-style score file, or scored sheets in the study's own Excel layout (a
    .zip or .xlsx). The sheets' own signals send the recompute of agreement, routing and final
    scores to the workers."""
    study = get_object_or_404(Study, pk=study_id)
    form = ScoreImportForm(request.POST or None, request.FILES or None)
    problems: list[str] = []
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            if upload.name.lower().endswith((".zip", ".xlsx")):  # the study's own Excel layout
                report = release_workbooks_import(
                    files=[(upload.name, upload.read())],
                    study=study,
                    source_name=upload.name,
                    actor=request.user,
                    rater_map=form.cleaned_data["raters"],
                )
            else:
                report = scores_import_upload(
                    content=upload.read(),
                    name=upload.name,
                    study=study,
                    actor=request.user,
                    rater_map=form.cleaned_data["raters"],
                    create_missing=form.cleaned_data["create_missing"],
                )
        except ScoreImportError as exc:
            problems = exc.problems
        else:
            return import_page_done(request, study=study, summary=report.summary(), warnings=report.warnings)
    return import_page_render(request, study=study, form=form, problems=problems, kind="scores")

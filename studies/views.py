"""Admin pages of the study set-up: studies from a template, scenario import."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from studies.forms import ScenarioImportForm, StudyCreateForm
from studies.models import Study
from studies.roles import admin_required
from studies.scenario_files import ScenarioFileError, records_from_upload
from studies.selectors import studies_overview
from studies.services.scenarios import scenarios_import
from studies.services.studies import StudySetupError, study_create


@admin_required
def studies_page(request: HttpRequest) -> HttpResponse:
    form = StudyCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            study = study_create(
                name=form.cleaned_data["name"],
                template=form.cleaned_data["template"],
                description=form.cleaned_data["description"],
                actor=request.user,
            )
        except StudySetupError as exc:
            form.add_error("name", str(exc))
        else:
            messages.success(request, _("Study %(name)s created.") % {"name": study.name})
            return redirect("studies:study", study_id=study.pk)
    return render(request, "studies/studies.html", {"studies": studies_overview(), "form": form})


@admin_required
def study_page(request: HttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    scenarios = study.scenarios.order_by("code")
    return render(request, "studies/study.html", {"study": study, "scenarios": scenarios})


@admin_required
def scenarios_import_page(request: HttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    form = ScenarioImportForm(request.POST or None, request.FILES or None)
    problems: list[str] = []
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            records = records_from_upload(upload.name, upload.read())
            report = scenarios_import(
                study=study,
                records=records,
                actor=request.user,
                force=form.cleaned_data["force"],
                source_name=upload.name,
            )
        except ScenarioFileError as exc:
            problems = exc.problems
        else:
            messages.success(request, report.summary())
            return redirect("studies:study", study_id=study.pk)
    status = 400 if problems or form.errors else 200
    return render(
        request,
        "studies/scenarios_import.html",
        {"study": study, "form": form, "problems": problems},
        status=status,
    )

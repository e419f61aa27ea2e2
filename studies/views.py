"""Admin pages of the study set-up: studies from a template, scenario import."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.contrib import messages
from django.forms import Form
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseStopPolling
from django_htmx.middleware import HtmxDetails

from core.accounts.roles import admin_required
from studies.forms import (
    PairsBuildForm,
    ResponseImportForm,
    ScenarioImportForm,
    StudyCatalogueForm,
    StudyCreateForm,
    StudyFilterForm,
    StudySettingsForm,
)
from studies.models import ResponseImportJob, Study, TaskKind
from studies.response_files import RecordError, RecordProblems, response_text_from_upload
from studies.rubric import load_rubric
from studies.scenario_files import ScenarioFileError, records_from_upload
from studies.selectors import (
    responses_held_count,
    studies_overview,
    study_checklist,
    study_pairs,
    study_response_count,
)
from studies.services.import_jobs import (
    response_import_job_dispatch_pending,
    responses_import_or_queue,
    responses_import_warnings,
)
from studies.services.pairs import PairsError, pairs_build
from studies.services.scenarios import scenarios_import
from studies.services.studies import (
    StudySetupError,
    study_catalogue_set,
    study_create,
    study_settings_update,
)

if TYPE_CHECKING:
    from core.accounts.requests import AuthenticatedHttpRequest


def study_choices_refresh(request: HttpRequest, form: Form, template: str) -> HttpResponse | None:
    """The pickers of the chosen study alone (``template``'s ``study_choices`` partial) when
    the page's study select asks for them (an htmx GET: ``form_offer_study_choices``); None
    for any other request, which the page answers itself."""
    if request.headers.get("HX-Request") == "true" and request.method == "GET":
        return render(request, f"{template}#study_choices", {"form": form})
    return None


@admin_required
def studies_page(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = StudyCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            study = study_create(
                name=form.cleaned_data["name"],
                template=form.cleaned_data["template"],
                description=form.cleaned_data["description"],
                response_language=form.cleaned_data["response_language"],
                rubric_version=form.cleaned_data["rubric_version"],
                task_kind=form.cleaned_data["task_kind"],
                pairs_from=form.cleaned_data["pairs_from"],
                actor=request.user,
            )
        except StudySetupError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, _("Study %(name)s created.") % {"name": study.name})
            return redirect("studies:study", study_id=study.pk)
    filter_form = StudyFilterForm(request.GET, auto_id="filter_%s")
    shown = studies_overview(search=filter_form.chosen().get("q") or "", page=request.GET.get("page"))
    context = {
        "page": shown,
        "filter_form": filter_form,
        "page_query": filter_form.kept_query(),
        "form": form,
    }
    return render(request, "studies/studies.html", context)


@admin_required
def study_page(request: HttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    checklist = study_checklist(study=study)
    pairs, pairs_total = study_pairs(study=study)
    context = {
        "study": study,
        # the first thing missing, in the order an admin does it: the checklist leads there
        "next_step": next((item.code for item in checklist if not item.done), None),
        "scenarios": study.scenarios.order_by("code"),
        "endpoints": study.endpoints.order_by("model_number"),
        "conditions": study.conditions.order_by("letter"),
        "response_count": study_response_count(study=study),
        "checklist": checklist,
        "held_count": responses_held_count(study=study),
        "pairs": pairs,
        "pairs_total": pairs_total,
        "rubric_title": load_rubric(study.rubric_version).title.text(get_language() or "en"),
        "pairs_build_form": PairsBuildForm(),
    }
    return render(request, "studies/study.html", context)


@admin_required
@require_POST
def study_pairs_build(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    """Build a pairwise study's pairs from its source's released responses (``pairs_build``)."""
    study = get_object_or_404(Study, pk=study_id)
    form = PairsBuildForm(request.POST)
    if not form.is_valid():
        for problem in form.errors.get("per_prompt", []):
            messages.error(request, _("Pairs a prompt: %(problem)s") % {"problem": problem})
        return redirect("studies:study", study_id=study.pk)
    try:
        report = pairs_build(study=study, actor=request.user, per_prompt=form.cleaned_data["per_prompt"])
    except PairsError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            ngettext("%(n)s pair built.", "%(n)s pairs built.", len(report.created))
            % {"n": len(report.created)},
        )
        if report.left_out:
            messages.info(
                request,
                ngettext(
                    "%(n)s more pair is left out of the sample.",
                    "%(n)s more pairs are left out of the sample.",
                    report.left_out,
                )
                % {"n": report.left_out},
            )
        if report.held:
            messages.warning(
                request,
                _("Held for review (their text names the catalogue): %(ids)s")
                % {"ids": ", ".join(report.held)},
            )
    return redirect("studies:study", study_id=study.pk)


@admin_required
def study_catalogue_page(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    """Choose the study's model endpoints and conditions from the catalogue."""
    study = get_object_or_404(Study, pk=study_id)
    initial = {"endpoints": list(study.endpoints.all()), "conditions": list(study.conditions.all())}
    form = StudyCatalogueForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        study_catalogue_set(study_id=study.pk, actor=request.user, **form.cleaned_data)
        messages.success(request, _("The study's models and conditions are saved."))
        return redirect("studies:study", study_id=study.pk)
    status = 400 if form.errors else 200
    return render(request, "studies/catalogue.html", {"study": study, "form": form}, status=status)


@admin_required
def study_settings_page(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    study = get_object_or_404(Study, pk=study_id)
    initial = {
        "name": study.name,
        "description": study.description,
        "response_language": study.response_language,
        "is_active": study.is_active,
        "responses_need_release": study.responses_need_release,
    }
    form = StudySettingsForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            study_settings_update(study_id=study.pk, actor=request.user, **form.cleaned_data)
        except StudySetupError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, _("Study settings saved."))
            return redirect("studies:study", study_id=study.pk)
    return render(request, "studies/settings.html", {"study": study, "form": form})


@admin_required
def scenarios_import_page(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
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
            return import_page_done(request, study=study, summary=report.summary())
    return import_page_render(request, study=study, form=form, problems=problems, kind="scenarios")


@admin_required
def responses_import_page(request: AuthenticatedHttpRequest, study_id: int) -> HttpResponse:
    """A file of up to ``IMPORT_IN_REQUEST_MAX`` responses is imported at once; a larger one goes
    to a worker, and its page shows the progress."""
    study = get_object_or_404(Study, pk=study_id)
    form = ResponseImportForm(request.POST or None, request.FILES or None)
    if study.task_kind == TaskKind.TEXT:  # its records give one text, and data_A.json is refused
        form.fields["file"].help_text = _(
            "JSON Lines with one object per line: research_id, scenario, model, condition, text (the "
            "response's one text)."
        )
    problems: list[str] = []
    if request.method == "POST" and form.is_valid():
        try:
            outcome = responses_import_or_queue(
                study=study,
                text=response_text_from_upload(form.cleaned_data["file"].read()),
                create_missing=form.cleaned_data["create_missing"],
                actor=request.user,
                source="responses import page",
                language=translation.get_language() or "en",
            )
        except RecordProblems as exc:
            problems = exc.problems
        except RecordError as exc:
            problems = [str(exc)]
        else:
            if isinstance(outcome, ResponseImportJob):
                return redirect("studies:responses_import_job", study_id=study.pk, job_id=outcome.pk)
            warnings = responses_import_warnings(study=study, report=outcome)
            return import_page_done(request, study=study, summary=outcome.summary(), warnings=warnings)
    return import_page_render(request, study=study, form=form, problems=problems, kind="responses")


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails  # set by django-htmx's middleware (its documented type hint)


@never_cache
@admin_required
def responses_import_job_page(request: HtmxHttpRequest, study_id: int, job_id: int) -> HttpResponse:
    """A response import's progress (polled by htmx until it has finished), then its outcome."""
    job = get_object_or_404(ResponseImportJob.objects.select_related("study"), pk=job_id, study_id=study_id)
    finished = job.status in (ResponseImportJob.Status.DONE, ResponseImportJob.Status.FAILED)
    context = {
        "study": job.study,
        "job": job,
        "percent": round(100 * job.progress / job.total) if job.total else 0,
        "problems": job.problems[:PROBLEMS_SHOWN],
        "problems_hidden": max(0, len(job.problems) - PROBLEMS_SHOWN),
        "waiting_for_broker": job.status == ResponseImportJob.Status.QUEUED
        and response_import_job_dispatch_pending(job=job),
    }
    if request.htmx:
        fragment = render(request, "studies/import_job.html#status", context)
        return HttpResponseStopPolling(fragment.content) if finished else fragment
    return render(request, "studies/import_job.html", context)


# An import page lists the first problems of a refused file; the count says how many there are.
PROBLEMS_SHOWN = 200


def import_page_render(
    request: HttpRequest, *, study: Study, form, problems: list[str], kind: str
) -> HttpResponse:
    """An import page (scenarios, responses, scores): 400 when the file was refused."""
    status = 400 if problems or form.errors else 200
    context = {
        "study": study,
        "form": form,
        "problems": problems[:PROBLEMS_SHOWN],  # a page of the first ones, however many there are
        "problems_total": len(problems),
        "problems_hidden": max(0, len(problems) - PROBLEMS_SHOWN),
        "kind": kind,
    }
    return render(request, "studies/import.html", context, status=status)


def import_page_done(
    request: HttpRequest, *, study: Study, summary: str, warnings: Sequence[str] = ()
) -> HttpResponse:
    messages.success(request, summary)
    for warning in warnings:
        messages.warning(request, warning)
    return redirect("studies:study", study_id=study.pk)

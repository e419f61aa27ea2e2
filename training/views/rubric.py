"""A study's rubric page: the rubric, its preview as raters see it, importing or choosing
another one before any sheet exists, and editing its guidelines and level texts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core.accounts.roles import admin_required
from scoring.views.sheet_context import sheet_preview_context
from studies.models import Study
from studies.rubric import Rubric, RubricError, load_rubric
from studies.rubric.document import MAX_DOCUMENT_BYTES
from studies.rubric.loader import rubric_data
from training.forms import RubricImportForm, RubricTextsForm, RubricUseForm
from training.selectors.rubric import study_rubric_revisions, study_rubric_state, study_rubric_versions
from training.services.rubric import rubric_revise
from training.services.rubric_import import rubric_import, study_rubric_choose
from training.services.training_set import TrainingError
from training.views.manage import admin_study

if TYPE_CHECKING:
    from core.accounts.requests import AuthenticatedHttpRequest


def _lang() -> str:
    return get_language() or "en"


def _page(study: Study, **query: object) -> str:
    extra = "".join(f"&{k}={v}" for k, v in query.items())
    return f"{reverse('training:rubric')}?study={study.pk}{extra}"


def _use_form(study: Study, data: dict | None = None) -> RubricUseForm:
    versions = []
    for version in study_rubric_versions(study=study):
        try:
            title = load_rubric(version).title.text(_lang())
        except RubricError:  # a stored version that no longer loads is not offered
            continue
        if version != study.rubric_version:
            versions.append((version, f"{title} ({version})"))
    return RubricUseForm(data, versions=versions)


def _step_shown(request: AuthenticatedHttpRequest, rubric: Rubric) -> int:
    """The step whose texts the editor shows (``?step=``), within the rubric's steps."""
    try:
        step = int(request.GET.get("step") or request.POST.get("step") or 1)
    except ValueError:
        return 1
    return min(max(step, 1), len(rubric.steps))


def _rubric_page(
    request: AuthenticatedHttpRequest, study: Study, studies: list[Study], **extra
) -> HttpResponse:
    rubric = load_rubric(study.rubric_version)
    lang = _lang()
    step = _step_shown(request, rubric)
    form = extra.pop("form", None) or RubricTextsForm(
        None, rubric=rubric, document=rubric_data(study.rubric_version), step=step
    )
    context = {
        "studies": studies,
        "study": study,
        "rubric": rubric,
        "rubric_title": rubric.title.text(lang),
        "summary": [
            {
                "number": s.number,
                "name": s.name.text(lang),
                "kind": s.kind,
                "items": s.item_count,
                "dimensions": [d.label.text(lang) for d in s.dimensions],
                "max": s.max,
            }
            for s in rubric.steps
        ],
        "state": study_rubric_state(study=study),
        "step": step,
        "steps": [(s.number, s.name.text(lang)) for s in rubric.steps],
        "form": form,
        "import_form": extra.pop("import_form", None) or RubricImportForm(),
        "use_form": _use_form(study),
        "revisions": study_rubric_revisions(study=study),
        **extra,
    }
    refused = extra.get("problems") or context["import_form"].errors
    return render(request, "training/rubric.html", context, status=400 if refused else 200)


@admin_required
def training_rubric(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The study's rubric; a POST saves edited guidelines and level texts as a new version
    (sheets keep theirs)."""
    studies, study = admin_study(request)
    if study is None:
        return redirect("training:manage")
    if request.method != "POST":
        return _rubric_page(request, study, studies)
    rubric = load_rubric(study.rubric_version)
    step = _step_shown(request, rubric)
    form = RubricTextsForm(request.POST, rubric=rubric, document=rubric_data(study.rubric_version), step=step)
    if form.is_valid():
        try:
            revision = rubric_revise(study=study, changes=form.cleaned_data, actor=request.user)
        except TrainingError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(
                request,
                _("Saved as rubric version %(version)s; sheets already opened keep their version.")
                % {"version": revision.version},
            )
            return redirect(_page(study, step=step))
    return _rubric_page(request, study, studies, form=form)


@admin_required
@require_POST
def training_rubric_import(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Store a rubric file as a version of the study, then show its preview; every problem
    of a file that is not a valid rubric is listed and nothing is stored."""
    studies, study = admin_study(request)
    if study is None:
        return redirect("training:manage")
    form = RubricImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return _rubric_page(request, study, studies, import_form=form, problems=[])
    upload = form.cleaned_data["file"]
    content = upload.read(MAX_DOCUMENT_BYTES + 1)
    try:
        rubric = rubric_import(study=study, content=content, file_name=upload.name, actor=request.user)
    except RubricError as exc:
        return _rubric_page(request, study, studies, problems=exc.problems, file_name=upload.name)
    messages.success(
        request,
        _("Rubric %(v)s is stored for this study. Check it below, then use it.") % {"v": rubric.version},
    )
    return redirect(f"{reverse('training:rubric_preview')}?study={study.pk}&version={rubric.version}")


@admin_required
@require_POST
def training_rubric_use(request: AuthenticatedHttpRequest) -> HttpResponse:
    _studies, study = admin_study(request)
    if study is None:
        return redirect("training:manage")
    form = _use_form(study, request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose one of the rubrics offered."))
        return redirect(_page(study))
    try:
        rubric = study_rubric_choose(study=study, version=form.cleaned_data["version"], actor=request.user)
    except TrainingError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The study now uses rubric %(v)s.") % {"v": rubric.version})
    return redirect(_page(study))


@admin_required
def training_rubric_preview(request: AuthenticatedHttpRequest) -> HttpResponse:
    """A rubric version's form as a rater would see it, with nothing to save."""
    studies, study = admin_study(request)
    if study is None:
        return redirect("training:manage")
    version = request.GET.get("version") or study.rubric_version
    if version not in study_rubric_versions(study=study):
        messages.error(request, _("Unknown rubric version for this study: %(v)s") % {"v": version[:60]})
        return redirect(_page(study))
    context = {
        "study": study,
        "version": version,
        "is_current": version == study.rubric_version,
        "state": study_rubric_state(study=study),
        **sheet_preview_context(rubric_version=version, lang=_lang(), task_kind=study.task_kind),
    }
    return render(request, "training/rubric_preview.html", context)

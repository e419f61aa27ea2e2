"""Researcher pages: the paper's tables and figures, filterable, and exports (admins and researchers)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from django import forms
from django.http import FileResponse, Http404, HttpResponse, HttpResponseBadRequest
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, render
from django.utils.functional import SimpleLazyObject
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseStopPolling

from calibration.selectors.consistency import judge_calibrated_label
from core.accounts.roles import is_admin, researcher_required
from research.figures import FIGURES, FORMATS, figures_offered
from research.models import KIND_RESULTS, KIND_WORKBOOKS, KINDS, ExportJob
from research.results import fmt
from research.selectors.exports import export_job_visible
from research.selectors.figures import figure_get
from research.selectors.research import results_cached_get
from research.selectors.versions import research_data_version
from research.services.downloads import ExportFileMissing, ExportStorageUnavailable, export_file_open
from research.services.exports import (
    ExportLimit,
    ExportParamsError,
    export_job_create,
    export_job_dispatch_pending,
)
from research.significance import MARKS_BOTH, MARKS_PAPER
from studies.chosen import study_chosen
from studies.condition_labels import condition_label
from studies.models import Condition, ModelEndpoint, Study
from studies.params import IdChoiceField, id_param
from studies.rubric import load_rubric
from studies.rubric.cgpst import version_is_cgpst
from studies.rubric.schema import MAX_STEPS

if TYPE_CHECKING:
    from core.accounts.requests import AuthenticatedHttpRequest

log = logging.getLogger(__name__)


class ResultsFilter(forms.Form):
    # one named study, never "all": the tables are a study's (see studies.chosen)
    study = IdChoiceField(
        queryset=Study.objects.order_by("name"), required=False, label=_("Study"), empty_label=None
    )
    conditions = forms.MultipleChoiceField(required=False, label=_("Conditions"))
    models = forms.MultipleChoiceField(required=False, label=_("Models"))
    a = forms.ChoiceField(required=False, label=_("Test condition"))
    b = forms.ChoiceField(required=False, label=_("against"))
    step = forms.TypedChoiceField(
        required=False,
        coerce=int,
        empty_value=1,  # type: ignore[arg-type]  # Django takes any value; django-stubs says str
        choices=[(n, n) for n in range(1, MAX_STEPS + 1)],  # narrowed to the study's rubric
        label=_("Dimension figure step"),
    )
    marks = forms.ChoiceField(
        required=False,
        choices=[
            (MARKS_PAPER, _("** p < 0.01 only, as the paper prints")),
            (MARKS_BOTH, _("** p < 0.01 and * p < 0.05")),
        ],
        label=_("Significance marks"),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        letters = [
            (c.letter, f"{c.letter} {condition_label(c.name)}") for c in Condition.objects.order_by("letter")
        ]
        models = [
            (m.model_number, f"{m.model_number} {m.name}")
            for m in ModelEndpoint.objects.order_by("model_number")
        ]
        for name, choices in (
            ("conditions", letters),
            ("a", [("", "—"), *letters]),
            ("b", [("", "—"), *letters]),
            ("models", models),
        ):
            field = self.fields[name]
            assert isinstance(field, forms.ChoiceField)  # declared above; django-stubs types fields as Field
            field.choices = choices

    def chosen(self, *, default_study: Callable[[], Study | None]) -> dict:
        data = self.cleaned_data if self.is_valid() else {}
        study = data.get("study") or default_study()
        pair = (data["a"], data["b"]) if data.get("a") and data.get("b") and data["a"] != data["b"] else None
        steps = len(load_rubric(study.rubric_version).steps) if study is not None else 1
        step_field = self.fields["step"]
        assert isinstance(step_field, forms.ChoiceField)
        step_field.choices = [(n, n) for n in range(1, steps + 1)]
        return {
            "study": study,
            "conditions": data.get("conditions") or None,
            "models": data.get("models") or None,
            "pair": pair,
            "step": min(data.get("step") or 1, steps),
            "marks": data.get("marks") or MARKS_PAPER,
        }


def _results(request: AuthenticatedHttpRequest):
    """The filter form, what it chose, the results and the key of their rendered tables
    (data version and filters). The results are lazy: the page's tables are a cached
    fragment, and a warm page never reads them."""
    default_study = study_chosen(request)
    form = ResultsFilter(request.GET or None, initial={"study": default_study})
    chosen = form.chosen(default_study=lambda: default_study)
    if chosen["study"] is None:
        return form, chosen, None, ""
    version = research_data_version(study=chosen["study"])
    filters = (chosen["conditions"], chosen["models"], chosen["pair"], chosen["marks"])
    results = SimpleLazyObject(
        lambda: results_cached_get(
            study=chosen["study"],
            conditions=chosen["conditions"],
            models=chosen["models"],
            pair=chosen["pair"],
            marks=chosen["marks"],
            version=version,
        )
    )
    return form, chosen, results, f"{version}:{filters!r}"


def _rows_for_display(rows, digits=2):
    return [[fmt(v, digits) for v in row.values] for row in rows]


def _tables(results) -> dict:
    """Tables 1 and 2 per condition, their values as the paper prints them."""
    names = dict(Condition.objects.values_list("letter", "name"))
    return {
        key: [
            (
                t.condition,
                names.get(t.condition, ""),
                list(zip(t.rows, _rows_for_display(t.rows), strict=True)),
            )
            for t in getattr(results, key)
        ]
        for key in ("table1", "table2")
    } | {"step_spans": _step_spans(results.columns)}


# what each figure shows, as its caption on the research page
FIGURE_TITLES = {
    "steps": _("Step means per model and condition (Figure 3)"),
    "dimensions": _("Dimension means of the chosen step (appendix I)"),
    "efficiency": _("Flexibility, Elaboration and Originality per Yes item, Steps 1 and 3 (Figure 4)"),
    "diversity": _("Diversity (1 − mean Self-BLEU), Steps 1 and 3"),
    "diversity_flexibility": _("Diversity against Flexibility, per response (Figures 6 and 7)"),
    "diversity_flexibility_models": _(
        "Diversity against Flexibility, per model mean, as the release plots it"
    ),
    "ablation": _("Overall score: TeamLLM, without roles, baseline (Figure 5)"),
}


@researcher_required
def research_home(request: AuthenticatedHttpRequest) -> HttpResponse:
    form, chosen, results, tables_key = _results(request)
    context = {
        "form": form,
        "chosen": chosen,
        "results": results,
        "figures": [(name, FIGURE_TITLES[name]) for name in _figures(chosen["study"])],
        # the parts that read the CGPST rubric's steps (Table 5, diversity, efficiency, the release layout)
        "cgpst": chosen["study"] is None or version_is_cgpst(chosen["study"].rubric_version),
        "tables_key": tables_key,
        "query": _query_with_study(request, chosen["study"]),
    }
    if results is not None:
        context["tables"] = SimpleLazyObject(lambda: _tables(results))
        context["judge_label"] = judge_calibrated_label(study=chosen["study"])
    return render(request, "research/home.html", context)


def _figures(study: Study | None) -> tuple[str, ...]:
    return figures_offered(cgpst=study is None or version_is_cgpst(study.rubric_version))


def _query_with_study(request: AuthenticatedHttpRequest, study: Study | None) -> str:
    """The page's filters for its figure links and downloads, always naming the study shown."""
    query = request.GET.copy()
    if study is not None:
        query["study"] = str(study.pk)
    return query.urlencode()


def _step_spans(columns) -> list[tuple[str, int]]:
    spans: list[tuple[str, int]] = []
    for col in columns:
        label = f"Step-{col.step}" if col.step else ""
        if spans and spans[-1][0] == label and label:
            spans[-1] = (label, spans[-1][1] + 1)
        else:
            spans.append((label, 1))
    return spans


@researcher_required
def research_figure(request: AuthenticatedHttpRequest, name: str, fmt_name: str) -> HttpResponse:
    if name not in FIGURES or fmt_name not in FORMATS:
        raise Http404
    # the link names its study; only a bare link falls back to the last one used
    chosen = ResultsFilter(request.GET or None).chosen(default_study=lambda: study_chosen(request))
    if chosen["study"] is None or name not in _figures(chosen["study"]):
        raise Http404
    data = figure_get(name=name, fmt_name=fmt_name, chosen=chosen)  # cached per data version
    response = HttpResponse(data, content_type=FORMATS[fmt_name])
    response["Cache-Control"] = "no-store"  # unblinded results: no copy in any cache
    if request.GET.get("download"):
        suffix = f"-step{chosen['step']}" if name == "dimensions" else ""
        response["Content-Disposition"] = f'attachment; filename="figure-{name}{suffix}.{fmt_name}"'
    return response


@researcher_required
@require_POST
def export_start(request: AuthenticatedHttpRequest) -> HttpResponse:
    kind = request.POST.get("kind", KIND_RESULTS)
    if kind not in KINDS:
        return HttpResponseBadRequest("unknown export")
    if kind == KIND_WORKBOOKS and not is_admin(request.user):
        return HttpResponse(status=403)
    study = get_object_or_404(Study, pk=id_param(request.POST.get("study")))
    params: dict[str, object] = {"study_id": study.pk}
    if kind == KIND_RESULTS:
        a, b = request.POST.get("a", ""), request.POST.get("b", "")
        params.update(
            pair=[a, b] if a and b and a != b else None,
            conditions=request.POST.getlist("conditions"),
            models=request.POST.getlist("models"),
            marks=MARKS_BOTH if request.POST.get("marks") == MARKS_BOTH else MARKS_PAPER,
            language=get_language(),  # the About sheet names the conditions as the page does
        )
    try:
        job = export_job_create(kind=kind, params=params, user=request.user)
    except ExportLimit as exc:  # said in the export area (htmx swaps a 200 only)
        return render(request, "research/_export_refused.html", {"limit": exc.limit})
    except ExportParamsError as exc:  # no form of the page sends such names
        return HttpResponseBadRequest(str(exc))
    return _job_fragment(request, job)


def _job_fragment(request: AuthenticatedHttpRequest, job: ExportJob) -> HttpResponse:
    context = {"job": job, "dispatch_pending": export_job_dispatch_pending(job)}
    return render(request, "research/_export_job.html", context)


def _job_for(request: AuthenticatedHttpRequest, pk: int) -> ExportJob:
    job = export_job_visible(job_id=pk, user=request.user)  # another researcher's: not found
    if job is None:
        raise Http404
    return job


@researcher_required
def export_status(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    job = _job_for(request, pk)
    response = _job_fragment(request, job)
    if job.status in (ExportJob.Status.DONE, ExportJob.Status.FAILED):
        stop = HttpResponseStopPolling(response.content)
        return stop
    return response


@researcher_required
def export_download(request: AuthenticatedHttpRequest, pk: int) -> HttpResponseBase:
    """Streamed from the storage (any web host can serve it), to whoever may see the job."""
    job = _job_for(request, pk)
    try:
        handle = export_file_open(job=job)
    except ExportFileMissing as exc:  # not built, or deleted from the storage (expired, by hand)
        raise Http404 from exc
    except ExportStorageUnavailable as exc:  # the storage does not answer: say so, keep the job
        response = render(request, "research/export_unavailable.html", {"job": job}, status=503)
        response["Retry-After"] = str(exc.retry_after)
        return response
    download = FileResponse(handle, as_attachment=True, filename=job.file_name)
    download["Cache-Control"] = "no-store"  # no copy left in a browser's or proxy's cache
    return download

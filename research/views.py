"""Researcher pages: the paper's tables and figures, filterable, and exports (admins and researchers)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django import forms
from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseStopPolling

from calibration.selectors.consistency import judge_calibrated_label
from calibration.statistics import icc_beside
from core.accounts.roles import admin_required, is_admin, researcher_required
from judging.models import Judge
from judging.selectors.comparison import difference_labels, judge_comparison_get, judges_with_sheets
from judging.services.opt_in import study_judge_opt_in_set
from research.figures import FIGURES, FORMATS
from research.models import KIND_RESULTS, KIND_WORKBOOKS, KINDS, ExportJob
from research.results import fmt
from research.selectors.exports import export_job_visible
from research.selectors.figures import figure_get
from research.selectors.research import results_cached_get
from research.selectors.versions import research_data_version
from research.services.downloads import ExportFileMissing, ExportStorageUnavailable, export_file_open
from research.services.exports import export_job_create, export_job_dispatch_pending
from research.significance import MARKS_BOTH, MARKS_PAPER
from studies.chosen import study_chosen
from studies.models import Condition, ModelEndpoint, Study
from studies.params import IdChoiceField, id_param
from studies.rubric import load_rubric

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
        empty_value=1,
        choices=[(n, n) for n in range(1, 7)],
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
        letters = [(c.letter, f"{c.letter} {c.name}") for c in Condition.objects.order_by("letter")]
        self.fields["conditions"].choices = letters
        self.fields["a"].choices = [("", "—")] + letters
        self.fields["b"].choices = [("", "—")] + letters
        self.fields["models"].choices = [
            (m.model_number, f"{m.model_number} {m.name}")
            for m in ModelEndpoint.objects.order_by("model_number")
        ]

    def chosen(self, *, default_study: Callable[[], Study | None]) -> dict:
        data = self.cleaned_data if self.is_valid() else {}
        study = data.get("study") or default_study()
        pair = (data["a"], data["b"]) if data.get("a") and data.get("b") and data["a"] != data["b"] else None
        return {
            "study": study,
            "conditions": data.get("conditions") or None,
            "models": data.get("models") or None,
            "pair": pair,
            "step": data.get("step") or 1,
            "marks": data.get("marks") or MARKS_PAPER,
        }


def _results(request: HttpRequest):
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
def research_home(request: HttpRequest) -> HttpResponse:
    form, chosen, results, tables_key = _results(request)
    context = {
        "form": form,
        "chosen": chosen,
        "results": results,
        "figures": [(name, FIGURE_TITLES[name]) for name in FIGURES],
        "tables_key": tables_key,
        "query": _query_with_study(request, chosen["study"]),
    }
    if results is not None:
        context["tables"] = SimpleLazyObject(lambda: _tables(results))
        context["judge_label"] = judge_calibrated_label(study=chosen["study"])
    return render(request, "research/home.html", context)


def _query_with_study(request: HttpRequest, study: Study | None) -> str:
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
def research_figure(request: HttpRequest, name: str, fmt_name: str) -> HttpResponse:
    if name not in FIGURES or fmt_name not in FORMATS:
        raise Http404
    # the link names its study; only a bare link falls back to the last one used
    chosen = ResultsFilter(request.GET or None).chosen(default_study=lambda: study_chosen(request))
    if chosen["study"] is None:
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
def export_start(request: HttpRequest) -> HttpResponse:
    kind = request.POST.get("kind", KIND_RESULTS)
    if kind not in KINDS:
        return HttpResponseBadRequest("unknown export")
    if kind == KIND_WORKBOOKS and not is_admin(request.user):
        return HttpResponse(status=403)
    study = get_object_or_404(Study, pk=id_param(request.POST.get("study")))
    params = {"study_id": study.pk}
    if kind == KIND_RESULTS:
        a, b = request.POST.get("a", ""), request.POST.get("b", "")
        params.update(
            pair=[a, b] if a and b and a != b else None,
            conditions=request.POST.getlist("conditions"),
            models=request.POST.getlist("models"),
            marks=MARKS_BOTH if request.POST.get("marks") == MARKS_BOTH else MARKS_PAPER,
        )
    job = export_job_create(kind=kind, params=params, user=request.user)
    return _job_fragment(request, job)


def _job_fragment(request: HttpRequest, job: ExportJob) -> HttpResponse:
    context = {"job": job, "dispatch_pending": export_job_dispatch_pending(job)}
    return render(request, "research/_export_job.html", context)


def _job_for(request: HttpRequest, pk: int) -> ExportJob:
    job = export_job_visible(job_id=pk, user=request.user)  # another researcher's: not found
    if job is None:
        raise Http404
    return job


@researcher_required
def export_status(request: HttpRequest, pk: int) -> HttpResponse:
    job = _job_for(request, pk)
    response = _job_fragment(request, job)
    if job.status in (ExportJob.Status.DONE, ExportJob.Status.FAILED):
        stop = HttpResponseStopPolling(response.content)
        return stop
    return response


@researcher_required
def export_download(request: HttpRequest, pk: int) -> HttpResponse:
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
    response = FileResponse(handle, as_attachment=True, filename=job.file_name)
    response["Cache-Control"] = "no-store"  # no copy left in a browser's or proxy's cache
    return response


class JudgeFilter(forms.Form):
    study = IdChoiceField(queryset=Study.objects.order_by("name"), required=False, label=_("Study"))
    judge = IdChoiceField(queryset=Judge.objects.order_by("name"), required=False, label=_("LLM judge"))


PCC_PAIR_LABELS = {
    "human_pair": _("Rater A with rater B (the human pair)"),
    "judge_a": _("Judge with rater A"),
    "judge_b": _("Judge with rater B"),
    "judge_calibrator": _("Judge with the calibrator"),
    "judge_final": _("Judge with the final score"),
}

ICC_SETS = (
    _("Rater A and rater B"),
    _("A, B and the judge"),
    _("Judge in place of rater A"),
    _("Judge in place of rater B"),
)


@researcher_required
def research_judge(request: HttpRequest) -> HttpResponse:
    """The judge measured against the human raters of one study (bad choices fall back to
    the first study and its first judge with sheets, with a message)."""
    form = JudgeFilter(request.GET or None)
    data = form.cleaned_data if form.is_valid() else {}
    study = study_chosen(request)  # the link's study (remembered), else the last one used
    judges = judges_with_sheets(study=study) if study else []
    judge = data.get("judge") or (judges[0] if judges else None)
    if not form.is_bound:  # show the study and judge the page fell back to
        form.initial = {"study": study.pk if study else None, "judge": judge.pk if judge else None}
    context: dict = {
        "form": form,
        "study": study,
        "judges": judges,
        "judge": judge,
        "comparison": None,
        "counting_judge": Judge.objects.filter(user_id=study.calibrating_judge_id).first() if study else None,
        "can_opt_in": is_admin(request.user),
    }
    if study is not None and judge is not None:
        comparison = judge_comparison_get(study=study, judge=judge)
        rubric = load_rubric(study.rubric_version)
        lang = "zh" if (request.LANGUAGE_CODE or "").startswith("zh") else "en"
        labels = difference_labels(rubric=rubric, lang=lang)
        context.update(
            comparison=comparison,
            pccs=[(PCC_PAIR_LABELS[p.label], p.value) for p in comparison.pccs],
            icc_beside=icc_beside(comparison.headline_icc),
            dimensions=[(labels[d.key], d.value) for d in comparison.dimensions],
            steps=[(labels[d.key], d.value) for d in comparison.steps],
            iccs=[
                (
                    row.scenario,
                    [
                        (
                            label,
                            result,
                            result.form(comparison.headline_icc),
                            [result.form(name) for name in icc_beside(comparison.headline_icc)],
                        )
                        for label, result in zip(
                            ICC_SETS,
                            (row.humans, row.judge_added, row.judge_for_a, row.judge_for_b),
                            strict=True,
                        )
                    ],
                )
                for row in comparison.iccs
            ],
        )
    return render(request, "research/judge.html", context)


@admin_required
@require_POST
def research_judge_opt_in(request: HttpRequest) -> HttpResponse:
    """The study's opt-in: let this judge count as the third rater, or (``off``) no judge."""
    study = get_object_or_404(Study, pk=id_param(request.POST.get("study")))
    judge = None
    if not request.POST.get("off"):
        judge = Judge.objects.filter(pk=id_param(request.POST.get("judge"))).first()
        if judge is None:
            messages.error(request, _("Choose a judge."))
            return redirect(f"{reverse('research:research_judge')}?study={study.pk}")
    report = study_judge_opt_in_set(study=study, judge=judge, actor=request.user)
    if judge is None:
        messages.success(request, _("No LLM judge counts in this study any more."))
    else:
        messages.success(
            request,
            _("%(judge)s now counts as third rater: %(n)s responses calibrated by it or a human.")
            % {"judge": judge.name, "n": report.calibrated},
        )
    query = f"?study={study.pk}" + (f"&judge={judge.pk}" if judge else "")
    return redirect(reverse("research:research_judge") + query)

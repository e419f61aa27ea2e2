"""The LLM judge's research page: the judge measured against the human raters, the judge and the
humans together (beyond the study), and the study's opt-in (admins and researchers)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from calibration.statistics import icc_beside
from core.accounts.roles import admin_required, is_admin, researcher_required
from judging.models import Judge
from judging.selectors.comparison import difference_labels, judge_comparison_get, judges_with_sheets
from judging.selectors.estimates import judge_calibration_get, judge_estimates_get
from judging.selectors.qualification import judge_qualification_holds, judge_qualification_latest
from judging.services.opt_in import OptInRefused, study_judge_opt_in_set
from judging.services.qualification import judge_qualification_run
from research.figures import FORMATS, figure_bytes, judge_calibration_figure
from research.labels import figure_labels
from research.significance import default_pair
from studies.chosen import study_chosen
from studies.models import Study
from studies.params import IdChoiceField, id_param
from studies.rubric import load_rubric

if TYPE_CHECKING:
    from core.accounts.requests import AuthenticatedHttpRequest


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
        "counting_judge": Judge.objects.filter(user_id=study.calibrating_judge_id).first()
        if study is not None and study.calibrating_judge_id is not None
        else None,
        "can_opt_in": is_admin(request.user),
    }
    if study is not None and judge is not None:
        comparison = judge_comparison_get(study=study, judge=judge)
        context["estimates"] = judge_estimates_get(study=study, judge=judge, pair_rule=default_pair)
    if study is not None and judge is not None:
        latest = judge_qualification_latest(study=study, judge=judge)
        context["qualification"] = latest
        context["qualification_holds"] = judge_qualification_holds(qualification=latest, judge=judge)
        context["gate_min_responses"] = settings.JUDGE_GATE_MIN_RESPONSES
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


@researcher_required
def research_judge_calibration_figure(request: HttpRequest, fmt_name: str) -> HttpResponse:
    """The judge's calibration plot for the page's study and judge (svg or png)."""
    form = JudgeFilter(request.GET or None)
    if fmt_name not in FORMATS or not form.is_valid() or not form.cleaned_data.get("judge"):
        raise Http404
    study, judge = form.cleaned_data.get("study"), form.cleaned_data["judge"]
    if study is None:
        raise Http404
    calibration = judge_calibration_get(study=study, judge=judge)
    rubric = load_rubric(study.rubric_version)
    maxima: dict[int | None, float] = {step.number: float(step.max) for step in rubric.steps}
    maxima[None] = float(rubric.max_total)
    figure = judge_calibration_figure(calibration, maxima=maxima, labels=figure_labels())
    data = figure_bytes(figure, fmt_name)
    response = HttpResponse(data, content_type=FORMATS[fmt_name])
    response["Cache-Control"] = "no-store"  # unblinded results: no copy in any cache
    if request.GET.get("download"):
        response["Content-Disposition"] = f'attachment; filename="judge-calibration.{fmt_name}"'
    return response


@admin_required
@require_POST
def research_judge_opt_in(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The study's opt-in: let this judge count as the third rater, or (``off``) no judge."""
    study = get_object_or_404(Study, pk=id_param(request.POST.get("study")))
    judge = None
    if not request.POST.get("off"):
        judge_id = id_param(request.POST.get("judge"))
        judge = Judge.objects.filter(pk=judge_id).first() if judge_id is not None else None
        if judge is None:
            messages.error(request, _("Choose a judge."))
            return redirect(f"{reverse('research:research_judge')}?study={study.pk}")
    try:
        report = study_judge_opt_in_set(study=study, judge=judge, actor=request.user)
    except OptInRefused as exc:
        messages.error(request, str(exc))
        return redirect(
            reverse("research:research_judge") + f"?study={study.pk}&judge={judge.pk if judge else ''}"
        )
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


@admin_required
@require_POST
def research_judge_qualify(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Run the judge's gate on the study now (audited; a failure takes away its opt-in)."""
    study = get_object_or_404(Study, pk=id_param(request.POST.get("study")))
    judge = get_object_or_404(Judge, pk=id_param(request.POST.get("judge")))
    result = judge_qualification_run(study=study, judge=judge, actor=request.user)
    if result.passed:
        messages.success(
            request, _("%(judge)s passed the alternative annotator test.") % {"judge": judge.name}
        )
    else:
        messages.warning(
            request, _("%(judge)s did not pass the alternative annotator test.") % {"judge": judge.name}
        )
    return redirect(reverse("research:research_judge") + f"?study={study.pk}&judge={judge.pk}")

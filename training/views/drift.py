"""The rater drift page (admins and researchers)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language

from core.accounts.roles import researcher_required
from studies.chosen import study_chosen
from studies.models import Study
from training.drift import DEFAULT_WINDOW
from training.selectors.drift import study_drift
from training.selectors.retest import retest_report

_W, _H = 240, 48  # sparkline size (px)


def _sparkline(values: list[float | None], threshold: float) -> dict:
    """Points of an inline SVG polyline for PCC in [-1, 1] by submission order."""
    n = max(len(values) - 1, 1)

    def y(v: float) -> float:
        return round(_H - (v + 1) / 2 * _H, 1)

    points = " ".join(f"{round(i / n * _W, 1)},{y(v)}" for i, v in enumerate(values) if v is not None)
    return {"points": points, "threshold_y": y(threshold), "width": _W, "height": _H}


def _window(request: HttpRequest) -> int:
    try:
        return min(max(int(request.GET.get("window", DEFAULT_WINDOW)), 1), 50)
    except ValueError:
        return DEFAULT_WINDOW


@researcher_required
def drift_page(request: HttpRequest) -> HttpResponse:
    studies = list(Study.objects.order_by("name"))
    study = study_chosen(request, studies=studies)  # the study the research pages show
    context: dict = {"studies": studies, "study": study, "lang": get_language() or "en"}
    if study is not None:
        data = study_drift(study=study, window=_window(request))
        for rater in data["raters"]:
            rater["pcc_line"] = _sparkline(rater["drift"].pccs, data["threshold"])
            rater["rolling_line"] = _sparkline(rater["drift"].rolling, data["threshold"])
            rater["dimensions"] = [
                (
                    d.label.text(context["lang"]),
                    rater["drift"].vs_partner.get(d.key),
                    rater["drift"].vs_final.get(d.key),
                )
                for d in data["rubric"].dimensions
            ]
        context.update(data, retest=retest_report(study=study))
    return render(request, "training/drift.html", context)

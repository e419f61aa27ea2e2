"""The judge comparison of one study and one judge: the human sheets (default managers:
humans only, web or imported) and the judge's sheets (``all_objects``) per response,
measured by ``judging.comparison`` (reads only)."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from calibration.models import FinalScore
from calibration.selectors.agreement_state import sheet_vector, states_load
from judging.comparison import (
    ComparisonItem,
    Difference,
    PccSummary,
    ResponseRow,
    ScenarioIcc,
    SelfPreference,
    ThresholdComparison,
    differences,
    pcc_summaries,
    response_rows,
    same_family,
    scenario_iccs,
    self_preference,
    threshold_comparisons,
)
from judging.models import Judge
from scoring.models import AssignmentRole, ScoreSheet, SheetStatus
from studies.models import Response, Study
from studies.rubric import Rubric, load_rubric


@dataclass(frozen=True)
class JudgeComparison:
    study: Study
    judge: Judge
    threshold: float
    headline_icc: str
    n_judged: int  # responses with a submitted judge sheet
    n_paired: int  # of those, with both primary human sheets submitted
    rows: list[ResponseRow]
    pccs: list[PccSummary]
    iccs: list[ScenarioIcc]
    dimensions: list[Difference]  # the 23 dimensions in the rubric's order
    steps: list[Difference]  # step:1..step:6 and overall
    thresholds: list[ThresholdComparison]
    self_preference: list[SelfPreference]


def judges_with_sheets(*, study: Study) -> list[Judge]:
    """The judges with at least one submitted sheet on the study's responses."""
    user_ids = (
        ScoreSheet.all_objects.filter(
            assignment__role=AssignmentRole.JUDGE,
            assignment__archived_at__isnull=True,
            assignment__response__study=study,
            status=SheetStatus.SUBMITTED,
        )
        .values_list("assignment__rater_id", flat=True)
        .distinct()
    )
    return list(Judge.objects.filter(user_id__in=list(user_ids)).select_related("endpoint"))


def _points(totals: dict, rubric: Rubric) -> dict[str, float]:
    points = {d.key: float(totals["dimensions"][d.key]) for d in rubric.dimensions}
    points.update({f"step:{n}": float(v) for n, v in (totals.get("steps") or {}).items()})
    points["overall"] = float(totals.get("overall") or 0)
    return points


def _final_vector(dimensions: dict, rubric: Rubric) -> list[float] | None:
    """The final score's dimensions (means, halves kept) normalized like a sheet's."""
    try:
        return [float(dimensions[d.key]) / d.max for d in rubric.dimensions]
    except (KeyError, TypeError, ValueError):
        return None


def judge_sheets_totals(*, study: Study, judge: Judge) -> dict[int, dict]:
    """The totals of the judge's submitted sheets by response (the latest per response)."""
    rows = (
        ScoreSheet.all_objects.filter(
            assignment__role=AssignmentRole.JUDGE,
            assignment__rater=judge.user,
            assignment__archived_at__isnull=True,
            assignment__response__study=study,
            status=SheetStatus.SUBMITTED,
        )
        .order_by("submitted_at", "id")
        .values_list("assignment__response_id", "totals")
    )
    return {response_id: totals for response_id, totals in rows if totals}


def comparison_items(*, study: Study, judge: Judge, rubric: Rubric) -> list[ComparisonItem]:
    """One item per response with a submitted judge sheet, in research-ID order."""
    judged = judge_sheets_totals(study=study, judge=judge)
    states = {s.response_id: s for s in states_load(study=study, response_ids=list(judged))}
    finals = dict(
        FinalScore.objects.filter(response_id__in=list(judged)).values_list("response_id", "dimensions")
    )
    meta = (
        Response.objects.filter(pk__in=list(judged))
        .order_by("research_id")
        .values("id", "research_id", "scenario__code", "model_id", "model__name", "model__model_name")
    )
    items = []
    for row in meta:
        state = states.get(row["id"])
        human = {}
        if state is not None:
            for key, sheet in (
                ("a", state.slots.get("a")),
                ("b", state.slots.get("b")),
                ("c", state.calibration),
            ):
                if sheet is not None and (totals := sheet.submitted_totals) is not None:
                    human[key] = totals
        final = finals.get(row["id"])
        items.append(
            ComparisonItem(
                response_id=row["id"],
                research_id=row["research_id"],
                scenario=row["scenario__code"],
                model=row["model__name"],
                own_family=same_family(
                    judge_endpoint_id=judge.endpoint_id,
                    judge_family=judge.provider_family,
                    endpoint_id=row["model_id"],
                    endpoint_name=row["model__name"],
                    endpoint_model_name=row["model__model_name"],
                ),
                judge=sheet_vector(judged[row["id"]], rubric),
                judge_points=_points(judged[row["id"]], rubric),
                a=sheet_vector(human["a"], rubric) if "a" in human else None,
                b=sheet_vector(human["b"], rubric) if "b" in human else None,
                calibrator=sheet_vector(human["c"], rubric) if "c" in human else None,
                final=_final_vector(final, rubric) if final else None,
                a_points=_points(human["a"], rubric) if "a" in human else None,
                b_points=_points(human["b"], rubric) if "b" in human else None,
            )
        )
    return items


def judge_comparison_get(*, study: Study, judge: Judge) -> JudgeComparison:
    """Everything the research page and the workbook sheet show for one judge."""
    rubric = load_rubric(study.rubric_version)
    items = comparison_items(study=study, judge=judge, rubric=rubric)
    rows = response_rows(items)
    threshold = float(study.agreement_threshold)
    step_keys = [f"step:{s.number}" for s in rubric.steps] + ["overall"]
    return JudgeComparison(
        study=study,
        judge=judge,
        threshold=threshold,
        headline_icc=study.headline_icc,
        n_judged=len(items),
        n_paired=sum(1 for item in items if item.has_pair),
        rows=rows,
        pccs=pcc_summaries(rows),
        iccs=scenario_iccs(items),
        dimensions=differences(items, [d.key for d in rubric.dimensions]),
        steps=differences(items, step_keys),
        thresholds=threshold_comparisons(rows, threshold),
        self_preference=self_preference(rows),
    )


def difference_labels(*, rubric: Rubric, lang: str) -> dict[str, str]:
    """Row labels of the differences: "2. Focus" per dimension, "Step 2 total", "Overall"."""
    labels = {d.key: f"{d.step}. {d.label.text(lang)}" for d in rubric.dimensions}
    labels.update({f"step:{s.number}": _("Step %(n)s total") % {"n": s.number} for s in rubric.steps})
    labels["overall"] = _("Overall")
    return labels

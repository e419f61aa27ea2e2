"""The results workbook's sheets of statistics beyond the study (docs/researchers.md): Krippendorff's
alpha per scoring group and scenario, reliability per rubric part (with a chart), and raters and design (G-study, D-study plan, rater severity,
fair scores). Rows of values, numbers as numbers; ``research.workbook`` writes them."""

from __future__ import annotations

from typing import Any

from calibration.selectors.agreement import agreement_groups
from calibration.selectors.facets import study_facets
from research.sources import ALPHA_NOTE
from training.selectors.retest import retest_report

ALPHA_TITLE = "Alpha (beyond the study)"
FACETS_TITLE = "Raters and design (beyond)"
PARTS_TITLE = "Reliability by part (beyond)"
RETEST_TITLE = "Test-retest (beyond)"
PARTS_HEADER = ["Part", "Kind", "Step", "Dimension", "ICC form", "ICC", "ICC 95% CI low", "ICC 95% CI high",
                "Krippendorff's alpha", "Alpha level", "Alpha 95% CI low", "Alpha 95% CI high", "n",
                "Why undefined"]  # fmt: skip
BeyondRow = tuple[list, bool]  # the values, and whether the row is a heading


def _round(value: Any) -> float | None:
    return None if value is None else round(float(value), 4)


def alpha_rows(*, study: Any, responses: list[dict[str, Any]] | None = None) -> list[BeyondRow]:
    """Krippendorff's alpha per scoring unit (``responses``: ``agreement_responses`` of the study,
    when the caller has them)."""
    rows: list[BeyondRow] = [
        (["Scenario", "Unit", "Stage", "n", "Krippendorff's alpha (interval)", "95% CI low", "95% CI high",
          "Why undefined"], True),
    ]  # fmt: skip
    for unit in agreement_groups(study=study, responses=responses):
        label = f"{unit['condition']} {unit['pair']}" if unit["group"] else "whole scenario (by slot)"
        for stage in ("before", "after"):
            stored = unit[stage]["alpha"]
            rows.append(([unit["scenario"].code, label, stage, stored.get("units"), _round(stored.get("value")),
                          _round(stored.get("ci_low")), _round(stored.get("ci_high")), stored.get("reason", "")],
                         False))  # fmt: skip
    return [*rows, ([], False), ([ALPHA_NOTE], False)]


def parts_rows(*, study: Any) -> list[BeyondRow]:
    """The header, then one row per dimension and per step (``study_facets``' parts)."""
    rows: list[BeyondRow] = [(PARTS_HEADER, True)]
    for p in study_facets(study=study)["parts"]:
        rows.append(([p["part"], p["kind"], p["step"], p["label_en"], p["icc_form"], _round(p["icc"]),
                      _round(p["icc_low"]), _round(p["icc_high"]), _round(p["alpha"]), p["alpha_level"],
                      _round(p["alpha_low"]), _round(p["alpha_high"]), p["units"],
                      p["icc_reason"] or p["alpha_reason"]], False))  # fmt: skip
    return rows


def parts_chart(book: Any, *, sheet: str, parts: int) -> Any:
    """A bar chart of the ICC and alpha of the ``parts`` rows below the header of ``sheet``
    (an XlsxWriter chart: the workbook's figure of which parts raters agree on)."""
    chart = book.add_chart({"type": "bar"})
    for column, name in ((5, "ICC"), (8, "Krippendorff's alpha")):
        chart.add_series({
            "name": name,
            "categories": [sheet, 1, 0, parts, 0],
            "values": [sheet, 1, column, parts, column],
        })  # fmt: skip
    chart.set_title({"name": "Reliability by rubric part (beyond the study)"})
    chart.set_x_axis({"min": -0.5, "max": 1})
    chart.set_y_axis({"reverse": True})
    chart.set_size({"width": 720, "height": 40 + 22 * max(parts, 1)})
    return chart


def facets_rows(*, study: Any) -> list[BeyondRow]:
    facets = study_facets(study=study)
    g = facets["g_study"]
    rows: list[BeyondRow] = [
        (["G-study: variance components by REML (each rater's mean normalized score)"], True),
        (["Facet", "Variance", "Share"], True),
        *[([facet, value, _round(g["shares"][facet])], False) for facet, value in g["components"].items()],
    ]
    if g["reason"]:
        rows.append(([g["reason"]], False))
    rows += [([], False), (["D-study: raters per response", "Scenarios per system", "Generalizability",
                            "Dependability"], True)]  # fmt: skip
    rows += [
        ([p["raters"], p["scenarios"], _round(p["generalizability"]), _round(p["dependability"])], False)
        for p in facets["d_study"]["plan"]
    ]
    severity = facets["severity"]
    rows += [([], False), (["Rater", "Severity (effect; below 0: harsher)", "SE", "Scores", "Biased dimensions"],
                           True)]  # fmt: skip
    rows += [
        (
            [
                r["rater"],
                _round(r["effect"]),
                _round(r["se"]),
                r["scores"],
                ", ".join(r["biased_dimensions"]),
            ],
            False,
        )
        for r in severity["raters"]
    ]
    if severity["reason"]:
        rows.append(([severity["reason"]], False))
    rows += [([], False), (["Research ID", "Fair score (normalized mean, rater effects removed)"], True)]
    rows += [([rid, _round(fair)], False) for rid, fair in sorted(severity["fair_scores"].items())]
    return rows


def retest_rows(*, study: Any) -> list[BeyondRow]:
    """Each rater's test-retest probes (``training.selectors.retest``): the study's setting, then a row
    per rater with probes (alarms first)."""
    report = retest_report(study=study)
    settings = report["settings"]
    rows: list[BeyondRow] = [
        ([f"Test-retest probes: {settings['percent']}% of each rater's submitted responses served again after "
          f"{settings['after_days']} days; alarm below intra-rater ICC(3,1) {settings['alarm_below']:.2f} "
          "over at least 3 scored probes. Probes count in nothing else."], False),
        (["Rater", "Probes", "Scored", "ICC(3,1)", "95% CI low", "95% CI high", "Mean PCC (first vs probe)",
          "Mean overall change (probe - first)", "Alarm", "Why undefined"], True),
    ]  # fmt: skip
    rows += [
        ([r["rater"], r["served"], r["scored"], _round(r["icc"]), _round(r["icc_low"]), _round(r["icc_high"]),
          _round(r["mean_pcc"]), _round(r["mean_change"]), "yes" if r["alarm"] else "", r["reason"]], False)
        for r in report["raters"]
    ]  # fmt: skip
    return rows

from django.core.management.base import BaseCommand, CommandError

from calibration.selectors.agreement import agreement_groups, agreement_responses, consistency_table
from calibration.selectors.facets import study_facets
from calibration.services.calibration import study_agreement_recompute
from calibration.statistics import ICC_FORMS
from studies.management.options import study_from_option
from studies.models import Scenario


def _num(value, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _flag(row: dict) -> str:
    """FLAG, with the level rule's reasons when it routed the response (beyond the study)."""
    if not row["flagged"]:
        return ""
    extra = [reason for reason in row["flag_reasons"] if reason != "pcc"]
    return f"FLAG({','.join(extra)})" if extra else "FLAG"


def _alpha(stored: dict) -> str:
    if stored.get("value") is None:
        return stored.get("reason") or "—"
    return f"{_num(stored['value'])} [{_num(stored['ci_low'], 2)}, {_num(stored['ci_high'], 2)}]"


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


class Command(BaseCommand):
    help = (
        "Print the agreement statistics of a study: PCC per response, the six ICC forms per scoring "
        "group and per scenario (before/after calibration) and Table 6. --recompute first recomputes "
        "everything (including calibration routing and final scores)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--study", help="Study name (default: the only study).")
        parser.add_argument("--scenario", help="Only this scenario code, e.g. FS10.")
        parser.add_argument("--recompute", action="store_true", help="Recompute before printing.")

    def handle(self, *args, study, scenario, recompute, **options):
        study_obj = study_from_option(study)
        scenario_id = None
        if scenario:
            found = Scenario.objects.filter(responses__study=study_obj, code=scenario).distinct().first()
            if found is None:
                raise CommandError(f"No responses of scenario {scenario!r} in study {study_obj.name}.")
            scenario_id = found.pk
        if recompute:
            report = study_agreement_recompute(study_id=study_obj.pk)
            self.stdout.write(
                f"Recomputed {report.responses} responses: {report.flagged} flagged, "
                f"{len(report.routed)} routed to a calibrator, {report.calibrated} calibrated."
            )
        out = self.stdout.write
        out(f"Study {study_obj.name}: threshold {study_obj.agreement_threshold}, headline {study_obj.headline_icc}, "
            f"final-score rule {study_obj.final_score_rule}")  # fmt: skip

        out(
            "\nPCC per response (23 dimensions, each divided by the sheet's maximum; "
            "PCC rel. = as the release's script, Purpose / 2, shown only; CCC = Lin's concordance, "
            "beyond the study)"
        )
        rows = [
            [
                "response",
                "scenario",
                "cond",
                "rater A",
                "rater B",
                "PCC",
                "p",
                "PCC rel.",
                "CCC",
                "flag",
                "after",
                "calibration",
                "final",
            ]
        ]
        for r in agreement_responses(study=study_obj, scenario_id=scenario_id):
            rows.append(
                [
                    r["research_id"], r["scenario"], r["condition"], r["rater_a"], r["rater_b"],
                    _num(r["pcc"]) if r["pcc"] is not None else r["reason"], _num(r["p_value"], 4),
                    _num(r["pcc_as_released"]), _num(r["ccc"]), _flag(r), _num(r["after_pcc"]), r["calibration"],
                    "—" if r["final"] is None else f"{r['final']}{' (cal)' if r['calibrated'] else ''}",
                ]
            )  # fmt: skip
        for line in _table(rows):
            out("  " + line)

        out(
            "\nICC per scoring group and per scenario (value [95% CI]; * = headline form; alpha = "
            "Krippendorff's alpha, interval, of the same values with a bootstrap interval, beyond the study)"
        )
        header = (
            ["scenario", "unit", "stage", "n"]
            + [f"{name}{'*' if name == study_obj.headline_icc else ''}" for name in ICC_FORMS]
            + ["alpha"]
        )
        rows = [header]
        for unit in agreement_groups(study=study_obj, scenario_id=scenario_id):
            label = f"{unit['condition']} {unit['pair']}" if unit["group"] else "all (by slot)"
            for stage in ("before", "after"):
                icc = unit[stage]
                if icc["reason"] or not icc["headline"]:
                    cells = [icc["reason"] or "—"] + [""] * (len(ICC_FORMS) - 1)
                else:
                    cells = [
                        f"{_num(f['value']['icc'])} [{_num(f['value']['ci_low'], 2)}, {_num(f['value']['ci_high'], 2)}]"
                        if f["value"] else "—"
                        for f in icc["forms"]
                    ]  # fmt: skip
                rows.append(
                    [unit["scenario"].code, label, stage, str(icc["n"]), *cells, _alpha(icc["alpha"])]
                )
        for line in _table(rows):
            out("  " + line)

        table = consistency_table(study=study_obj)
        out(
            f"\nConsistency before and after calibration (Table 6; ICC = mean per {table['icc_unit']}; "
            f"* = headline; ICC3k as the release (consistency), ICC2k the paper's absolute agreement)"
        )
        rows = [["metric", "before [95% CI]", "after [95% CI]", "n", "responses", "warning"]]
        rows += [
            [
                f"{r['form']}{'*' if r['headline'] else ''}"
                if r["form"]
                else f"{r['metric']} ({r['pcc_label']})",
                f"{_num(r['before'], 3)} [{_num(r['ci_before'][0], 3)}, {_num(r['ci_before'][1], 3)}]",
                f"{_num(r['after'], 3)} [{_num(r['ci_after'][0], 3)}, {_num(r['ci_after'][1], 3)}]",
                str(r["n"]),
                str(r["n_responses"]),
                f"not a headline: {r['warning']}" if r["warning"] else "",
            ]
            for r in table["rows"]
        ]
        for line in _table(rows):
            out("  " + line)
        out(
            f"  {table['responses']} responses scored by both raters, {table['flagged']} flagged, "
            f"{table['calibrated']} calibrated, {table['pending']} awaiting calibration"
            + ("" if table["complete"] else " (the 'after' column is not final)")
        )
        out(f"  {table['after_definition']}")
        out(f"  Final-score rule: {table['rule_label']} ({table['rule_provenance']})")
        selection = table["selection"]
        if selection.get("n"):
            out(
                f"  Calibrated responses only (n = {selection['n']}), mean PCC: original pair "
                f"{_num(selection['pair'])}; calibrator with rater A {_num(selection['calibrator_a'])}, "
                f"with rater B {_num(selection['calibrator_b'])}, mean {_num(selection['calibrator_mean'])}, "
                f"with the closer rater (after) {_num(selection['calibrator_closer'])}"
            )
        _facets(out, study_facets(study=study_obj))


def _interval(low, high) -> str:
    return "—" if low is None else f"{_num(low, 2)} – {_num(high, 2)}"


def _parts(out, parts: list[dict]) -> None:
    if not parts:
        return
    out(
        f"\nReliability by rubric part (beyond the study): {parts[0]['icc_form']} and Krippendorff's alpha "
        "(ordinal per dimension, interval per step) with 95% intervals"
    )
    rows = [["part", "ICC", "95% CI", "alpha", "95% CI", "n"]] + [
        [
            p["part"],
            _num(p["icc"]),
            _interval(p["icc_low"], p["icc_high"]),
            _num(p["alpha"]),
            _interval(p["alpha_low"], p["alpha_high"]),
            str(p["units"]),
        ]
        for p in parts
    ]
    for line in _table(rows):
        out("  " + line)


def _facets(out, facets: dict) -> None:
    """Raters and design, beyond the study: G-study, D-study, rater severity."""
    g = facets["g_study"]
    out("\nG-study (beyond the study): variance components by REML of each rater's mean normalized score")
    if g["reason"]:
        out(f"  {g['reason']}")
    else:
        rows = [["facet", "variance", "share"]] + [
            [facet, f"{value:.5f}", _num(g["shares"][facet])] for facet, value in g["components"].items()
        ]
        for line in _table(rows):
            out("  " + line)
        d = facets["d_study"]
        current = d["current"]
        out(
            f"  This design ({current['scenarios']} scenarios per system, {current['raters']} raters per response): "
            f"generalizability {_num(current['generalizability'])}, dependability {_num(current['dependability'])}"
        )
        out(
            "\nD-study (beyond the study): generalizability / dependability by raters per response and scenarios"
        )
        plan = {(p["raters"], p["scenarios"]): p for p in d["plan"]}
        rows = [["raters \\ scenarios", *map(str, d["scenarios"])]]
        for n_r in d["raters"]:
            rows.append([str(n_r)] + [
                f"{_num(plan[(n_r, n_s)]['generalizability'], 2)} / {_num(plan[(n_r, n_s)]['dependability'], 2)}"
                for n_s in d["scenarios"]
            ])  # fmt: skip
        for line in _table(rows):
            out("  " + line)
    _parts(out, facets["parts"])
    severity = facets["severity"]
    out("\nRater severity (beyond the study): effect on the normalized scale (below 0: harsher), its SE")
    if severity["reason"]:
        out(f"  {severity['reason']}")
        return
    rows = [["rater", "effect", "SE", "scores", "biased dimensions"]] + [
        [
            r["rater"],
            f"{r['effect']:+.3f}",
            _num(r["se"]),
            str(r["scores"]),
            ", ".join(r["biased_dimensions"]) or "—",
        ]
        for r in severity["raters"]
    ]
    for line in _table(rows):
        out("  " + line)

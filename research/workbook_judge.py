"""The results workbook's "LLM judge vs human raters" sheet: the rows of each judge's
comparison with the study's human raters (``judging.selectors.comparison``), numbers as
numbers. The sheet exists only when a judge has submitted sheets in the study."""

from __future__ import annotations

from django.utils import translation

from calibration.statistics import ICC_FORMS, icc_label
from judging.comparison import MeanWithCi
from judging.ppi import PpiEstimate
from judging.selectors.comparison import JudgeComparison, difference_labels
from judging.selectors.estimates import JudgeEstimates
from studies.rubric import load_rubric

SHEET_TITLE = "LLM judge vs human raters"
PCC_PAIRS = {
    "human_pair": "Rater A with rater B (the human pair)",
    "judge_a": "Judge with rater A",
    "judge_b": "Judge with rater B",
    "judge_calibrator": "Judge with the calibrator",
    "judge_final": "Judge with the final score",
}
ICC_SETS = (
    "Rater A and rater B",
    "A, B and the judge",
    "Judge in place of rater A",
    "Judge in place of rater B",
)

Row = tuple[list, bool]  # the values, and whether the row is a heading


def _mean(value: MeanWithCi) -> list:
    return [value.n, value.mean, value.ci_low, value.ci_high, value.warning]


def _ppi(e: PpiEstimate) -> list:
    return [e.n_human, e.n_judge_only, e.human_mean, e.human_low, e.human_high, e.mean, e.low, e.high,
            e.weight, e.effective_n, e.judge_mean]  # fmt: skip


PPI_HEADINGS = ["Human-scored", "Judge only", "Humans alone", "CI low", "CI high", "Judge and humans (PPI++)",
                "CI low", "CI high", "Judge's weight", "Worth (human-scored responses)", "Judge's own mean"]  # fmt: skip


def estimate_rows(estimates: JudgeEstimates) -> list[Row]:
    """The judge and the humans together (beyond the study): prediction-powered means, the
    self-preference test and the calibration by score level."""
    rows: list[Row] = [
        ([], False),
        (["The judge and the humans together (beyond the study): the humans' mean overall score estimated "
          "with the judge's scores of every response, PPI++ with a 95% interval"], True),
        (["Model", "Condition", *PPI_HEADINGS], True),
    ]  # fmt: skip
    rows += [
        ([c.model, c.condition, *_ppi(c.estimate)], False) for c in [*estimates.cells, *estimates.differences]
    ]
    t = estimates.self_preference
    rows += [
        ([], False),
        (["Self-preference as a test (beyond the study): judge minus the humans' final overall, own responses "
          "against the others', permutation test and Hedges' g"], True),
        (["Own responses", "Other responses", "Own mean", "Others' mean", "Difference", "p", "Hedges' g"], True),
        ([t.n_own, t.n_others, t.own_mean, t.others_mean, t.difference, t.p_value, t.hedges_g], False),
        ([], False),
        (["Calibration (beyond the study): the judge's mean at each level of the humans' final score"], True),
        (["Score", "Humans' level", "Responses", "Judge's mean", "CI low", "CI high"], True),
    ]  # fmt: skip
    for curve in estimates.calibration:
        name = f"Step {curve.step} total" if curve.step is not None else "Overall"
        rows += [([name, p.level, p.n, p.judge_mean, p.low, p.high], False) for p in curve.points]
    return rows


def judge_sheet_rows(comparison: JudgeComparison, estimates: JudgeEstimates) -> list[Row]:
    """One judge's block of the sheet, top to bottom."""
    judge = comparison.judge
    rows: list[Row] = [
        (["Judge", judge.name, "Model", str(judge.endpoint), "Prompt version", judge.prompt_version,
          "Temperature", judge.temperature, "Samples", judge.samples,
          "Provider family", judge.provider_family], True),
        (["Responses judged", comparison.n_judged, "With both primary raters' sheets", comparison.n_paired,
          "Agreement threshold (pass: r > threshold)", comparison.threshold,
          "Headline ICC", icc_label(comparison.headline_icc, comparison.headline_icc)], False),
        ([], False),
        (["Agreement: mean PCC over responses (23 normalized dimension scores, as for the human pair)"], True),
        (["Pair", "Responses", "Mean PCC", "CI low", "CI high", "Warning"], True),
    ]  # fmt: skip
    rows += [([PCC_PAIRS[p.label], *_mean(p.value)], False) for p in comparison.pccs]
    rows += [([], False), (["ICC per scenario (all six forms; CI of the headline form)"], True)]
    rows.append((["Scenario", "Raters", "Responses", *ICC_FORMS, "CI low", "CI high", "Reason"], True))
    for scenario in comparison.iccs:
        results = (scenario.humans, scenario.judge_added, scenario.judge_for_a, scenario.judge_for_b)
        for label, result in zip(ICC_SETS, results, strict=True):
            headline = result.form(comparison.headline_icc)
            values = [form.icc if (form := result.form(name)) else None for name in ICC_FORMS]
            ci = [headline.ci_low, headline.ci_high] if headline else [None, None]
            rows.append(([scenario.scenario, label, result.n_targets, *values, *ci, result.reason], False))
    with translation.override("en"):
        labels = difference_labels(rubric=load_rubric(comparison.study.rubric_version), lang="en")
    rows += [
        ([], False),
        (["Judge minus the mean of the two primary raters (points; negative = the judge is harsher)"], True),
        (["Dimension", "Responses", "Mean difference", "CI low", "CI high", "Warning"], True),
    ]
    rows += [([labels[d.key], *_mean(d.value)], False) for d in [*comparison.steps, *comparison.dimensions]]
    rows += [
        ([], False),
        (["Under the threshold: the judge in place of one rater against the human pair (McNemar's exact test)"], True),
        (["Judge replaces", "Responses", "Human pair under", "Rate", "Judge pair under", "Rate", "Both",
          "Only humans", "Only judge", "McNemar p"], True),
    ]  # fmt: skip
    rows += [
        ([f"rater {t.replaces.upper()}", t.n, t.human_below, t.human_rate, t.judge_below, t.judge_rate,
          t.both_below, t.only_human_below, t.only_judge_below, t.p_mcnemar], False)
        for t in comparison.thresholds
    ]  # fmt: skip
    rows += [
        ([], False),
        (["Self-preference: own model or provider family (same endpoint, or a model name beginning with the "
          "judge's provider family) against the other models"], True),
        (["Responses", "n", "Mean PCC with the primary raters", "CI low", "CI high", "Warning",
          "Overall: judge minus human mean", "CI low", "CI high", "Warning"], True),
    ]  # fmt: skip
    for s in comparison.self_preference:
        a, d = s.agreement, s.overall_difference
        rows.append(([ "Own model or family" if s.own else "Other models", s.n, a.mean, a.ci_low, a.ci_high,
                       a.warning, d.mean, d.ci_low, d.ci_high, d.warning], False))  # fmt: skip
    rows += [
        ([], False),
        (["Per response (PCC)"], True),
        (["Research ID", "Scenario", "Model", "Own family", "Rater A with rater B", "Judge with rater A",
          "Judge with rater B", "Judge with the calibrator", "Judge with the final score"], True),
    ]  # fmt: skip
    for row in comparison.rows:
        pccs = [r.r if r is not None else None for r in
                (row.human_pair, row.judge_a, row.judge_b, row.judge_calibrator, row.judge_final)]  # fmt: skip
        rows.append(([row.item.research_id, row.item.scenario, row.item.model,
                      "yes" if row.item.own_family else "no", *pccs], False))  # fmt: skip
    return rows + estimate_rows(estimates) + [([], False), ([], False)]

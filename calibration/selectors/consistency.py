"""Table 6: consistency before and after calibration, with its definitions, its sample
sizes and the selection effect of the calibrated pair (reads only).

What the study's own material says (documented in docs/researchers.md, "Fidelity to the study"):
the paper says only that a third expert reassesses responses below the threshold and
that the final scores are adjusted; the released calibrated data holds exactly two
sheets per response, filed under the original pair, and the final score is their
mean. Which two sheets those are after a calibration is not stated: every rule here
is labelled by what it is.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from calibration.models import FinalScore, GroupAgreement, ResponseAgreement
from calibration.selectors.agreement_state import responses_evaluate, states_load, study_level_rule
from calibration.statistics import (
    REASON_MISSING_SHEET,
    icc_beside,
    icc_label,
    mean_ci95,
    mean_defined,
    pcc,
    small_sample_warning,
)
from studies.models import FinalScoreRule, ResponseStatus, Study
from studies.rubric import load_rubric
from studies.rubric.cgpst import version_is_cgpst

BEFORE, AFTER = GroupAgreement.Stage.BEFORE, GroupAgreement.Stage.AFTER

# Where each final-score rule comes from.
RULE_PROVENANCE: dict[str, object] = {
    FinalScoreRule.MEAN_OF_PAIR: _("as released: the mean of the two sheets"),
    FinalScoreRule.CALIBRATOR_AND_CLOSER: _(
        "our reading: the release keeps two sheets per calibrated response and averages them; "
        "which primary rater the calibrator's sheet stands beside is our choice (the closer one)"
    ),
    FinalScoreRule.MEAN_OF_THREE: _("our option: not in the paper or the release"),
    FinalScoreRule.CALIBRATOR_ONLY: _("our option: not in the paper or the release"),
    FinalScoreRule.IMPORTED: _("imported as given"),
}
AFTER_DEFINITION = _(
    "After calibration: each calibrated response counts with the PCC of the calibrator and "
    "the primary rater closer to the calibrator (higher PCC), and the calibrator takes the "
    "farther rater's place in the ICC; other responses keep their pair. Choosing the closer "
    "rater raises the after-PCC by construction: compare the calibrator's PCC with each "
    "primary rater below."
)
PCC_LABELS = {
    "sheet": _("the sheet's maxima, headline"),
    "release": _("as the release's script (Purpose / 2), before calibration only"),
}
WARNING_LABELS = {
    "fewer than 5 responses": _("fewer than 5 responses"),
    "no confidence interval": _("no confidence interval"),
    "95% CI wider than 1": _("95% CI wider than 1"),
}


def icc_headline(forms: dict[str, Any], form: str, n_responses: int | None = None) -> dict[str, Any] | None:
    """One stored ICC form with its 95% CI; with ``n_responses``, also the small-sample
    warning (a code and its translated label) for showing it as a headline."""
    value = (forms or {}).get(form)
    if not value or value.get("icc") is None:
        return None
    low, high = (list(value.get("ci95") or []) + [None, None])[:2]
    out = {"icc": value["icc"], "ci_low": low, "ci_high": high, "p": value.get("p")}
    if n_responses is not None:
        warning = small_sample_warning(n_responses, low, high)
        out.update(n=n_responses, warning=warning, warning_label=str(WARNING_LABELS.get(warning, "")))
    return out


def _row(
    metric: str,
    before: Sequence[float | None],
    after: Sequence[float | None],
    n_responses: int,
    ci_before: tuple[float | None, float | None],
    ci_after: tuple[float | None, float | None],
) -> dict[str, Any]:
    """One row of Table 6 with its CIs and the small-sample warning (English code + label)."""
    warning = small_sample_warning(n_responses, *ci_before)
    # a row of before-calibration values only (the release script's PCC) has no "after" to warn of
    has_after = any(v is not None for v in after)
    warning_after = small_sample_warning(n_responses, *ci_after) if has_after else ""
    return {
        "metric": metric,
        "before": mean_defined(before),
        "after": mean_defined(after),
        "n": sum(v is not None for v in before),
        "n_responses": n_responses,
        "ci_before": list(ci_before),
        "ci_after": list(ci_after),
        "warning": warning or warning_after,
        "warning_label": str(WARNING_LABELS.get(warning or warning_after, "")),
    }


def _icc_ci(units: list[dict[str, Any]]) -> tuple[float | None, float | None]:
    """One unit: its own 95% CI (pingouin's); several: the t-interval of their mean."""
    if len(units) == 1:
        return units[0]["ci_low"], units[0]["ci_high"]
    return mean_ci95([u["icc"] for u in units])


def selection_effect(*, study: Study) -> dict[str, Any]:
    """Over the calibrated responses only: the pair's PCC, the calibrator's PCC with rater A,
    with rater B, their mean, and with the closer rater (the after-PCC)."""
    rubric = load_rubric(study.rubric_version)
    states = states_load(study=study)
    evaluations = responses_evaluate(
        states=states,
        threshold=float(study.agreement_threshold),
        rule=study.final_score_rule,
        rubric=rubric,
        level=study_level_rule(study),
    )
    pair, with_a, with_b, both, closer = [], [], [], [], []
    for e in evaluations:
        if not e.calibrated:
            continue
        r_a, r_b = pcc(e.vectors["c"], e.vectors["a"]).r, pcc(e.vectors["c"], e.vectors["b"]).r
        pair.append(e.before.r)
        with_a.append(r_a)
        with_b.append(r_b)
        both.append(mean_defined([r_a, r_b]))
        closer.append(e.after_pcc)
    return {
        "n": len(closer),
        "pair": mean_defined(pair),
        "calibrator_a": mean_defined(with_a),
        "calibrator_b": mean_defined(with_b),
        "calibrator_mean": mean_defined(both),
        "calibrator_closer": mean_defined(closer),
    }


def consistency_table(*, study: Study) -> dict[str, Any]:
    """The study's Table 6: mean PCC and mean ICC before and after calibration.

    * PCC before: mean r over responses with both primary sheets submitted and r
      defined. PCC after: the same responses, each with the PCC of the pair used
      after calibration (calibrator + closer primary rater) when calibrated, its
      original pair otherwise (including flagged responses still waiting).
    * ICC: mean of the study's headline form over the scoring groups (scenario x
      rater pair, the study's unit); if no group has an ICC, over scenarios.
    * Each row carries n (values averaged), the responses behind it, a 95% CI
      (PCC: t-interval over responses; ICC: pingouin's for one unit, else the
      t-interval over units) and a warning when it must not stand as a bare number.

    Returns ``{"study", "study_id", "threshold", "headline_icc", "icc_unit",
    "rows": [{"metric", "form", "form_label", "headline", "before", "after", "n",
    "n_responses", "ci_before", "ci_after", "warning", "warning_label"}], "responses", "flagged", "calibrated",
    "pending", "pcc_undefined", "complete", "rule", "rule_label", "rule_provenance",
    "after_definition", "selection"}``.
    """
    rows = (
        ResponseAgreement.objects.filter(response__study=study)
        .exclude(response__status=ResponseStatus.WITHDRAWN)
        .exclude(reason=REASON_MISSING_SHEET)
        .values("pcc", "pcc_as_released", "after_pcc", "flagged", "response__final_score__calibrated")
    )
    before, after, as_released = [], [], []
    flagged = calibrated = undefined = 0
    for row in rows:
        is_calibrated = bool(row["flagged"] and row["response__final_score__calibrated"])
        flagged += row["flagged"]
        calibrated += is_calibrated
        undefined += row["pcc"] is None
        before.append(row["pcc"])
        as_released.append(row["pcc_as_released"])
        after.append(row["after_pcc"] if is_calibrated else row["pcc"])
    form = study.headline_icc
    icc_rows = list(GroupAgreement.objects.filter(study=study, group__isnull=False))
    unit = "group"
    if not any(icc_headline(g.forms, form) for g in icc_rows):
        icc_rows = list(GroupAgreement.objects.filter(study=study, group__isnull=True))
        unit = "scenario"

    def icc_row(name: str) -> dict[str, Any]:
        """Table 6's ICC row of one form: the mean over the units and its CI."""
        by_stage: dict[str, list[dict[str, Any]]] = defaultdict(list)
        icc_responses = 0
        for g in icc_rows:
            value = icc_headline(g.forms, name)
            if value is not None:
                by_stage[g.stage].append(value)
                icc_responses += g.n_responses if g.stage == BEFORE else 0
        row = _row(
            "ICC",
            [u["icc"] for u in by_stage[BEFORE]],
            [u["icc"] for u in by_stage[AFTER]],
            icc_responses,
            _icc_ci(by_stage[BEFORE]),
            _icc_ci(by_stage[AFTER]) if by_stage[AFTER] else (None, None),
        )
        return {**row, "form": name, "form_label": icc_label(name, form), "headline": name == form}

    pcc_values = [v for v in before if v is not None]
    pcc_after = [v for v in after if v is not None]
    released_values = [v for v in as_released if v is not None]
    rule = study.final_score_rule
    return {
        "study": study.name,
        "study_id": study.pk,
        "threshold": float(study.agreement_threshold),
        "headline_icc": form,
        "icc_unit": unit,
        # the PCC with the sheet's maxima (the headline), the same as the release's script
        # computes it (before calibration only: the calibrated pair's is not stored), then the
        # headline ICC form, the release's ICC3k and the paper's ICC2k beside it
        "rows": [
            {
                **_row("PCC", before, after, len(pcc_values), mean_ci95(pcc_values), mean_ci95(pcc_after)),
                "form": "",
                "form_label": "",
                "pcc_label": str(PCC_LABELS["sheet"]),
                "headline": True,
            },
            *(
                [  # the release script's normalization reads CGPST's Purpose
                    {
                        **_row(
                            "PCC",
                            as_released,
                            [],
                            len(released_values),
                            mean_ci95(released_values),
                            (None, None),
                        ),
                        "form": "",
                        "form_label": "",
                        "pcc_label": str(PCC_LABELS["release"]),
                        "headline": False,
                    }
                ]
                if version_is_cgpst(study.rubric_version)
                else []
            ),
            *(icc_row(name) for name in [form, *icc_beside(form)]),
        ],
        "responses": len(before),
        "flagged": flagged,
        "calibrated": calibrated,
        "pending": flagged - calibrated,
        "pcc_undefined": undefined,
        "complete": flagged == calibrated,
        "rule": rule,
        "rule_label": str(FinalScoreRule(rule).label) if rule in FinalScoreRule.values else rule,
        "rule_provenance": str(RULE_PROVENANCE.get(rule, "")),
        "judge_label": judge_calibrated_label(study=study),
        "after_definition": str(AFTER_DEFINITION),
        "selection": selection_effect(study=study) if calibrated else {"n": 0},
    }


def judge_calibrated_count(*, study: Study) -> int:
    """Final scores in which the study's opted-in LLM judge was the third rater."""
    return FinalScore.objects.filter(response__study=study, judge_calibrated=True).count()


def judge_calibrated_label(*, study: Study) -> str:
    """The label every table built on final scores or the calibrated pair carries when an
    opted-in judge calibrated some responses ("" when none)."""
    n = judge_calibrated_count(study=study)
    if not n:
        return ""
    return ngettext(
        "Includes an LLM judge as third rater for %(n)s response.",
        "Includes an LLM judge as third rater for %(n)s responses.",
        n,
    ) % {"n": n}

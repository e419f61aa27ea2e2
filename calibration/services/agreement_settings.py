"""A study's agreement settings (threshold, headline ICC form, final-score rule, the level rule
beyond the study), changed through one audited service that re-evaluates the whole study."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils.translation import gettext as _

from calibration.services.calibration import CalibrationError, RecomputeReport, study_agreement_recompute
from studies.models import CALIBRATION_RULES, HeadlineICC, Study
from studies.services.audit import audit_changes, audit_record

if TYPE_CHECKING:
    from django.contrib.auth.models import User


PAPER_NOMINAL_THRESHOLD = Decimal("0.70")


# A PCC threshold of 0 or below flags no pair that agrees even slightly (-1 flags nothing at all).
THRESHOLD_MIN, THRESHOLD_MAX = Decimal("0"), Decimal("1")


def _quantized(value: Decimal | None, step: str) -> Decimal | None:
    return None if value is None else Decimal(value).quantize(Decimal(step))


def _text(value: Decimal | None, step: str) -> str | None:
    return None if value is None else str(Decimal(value).quantize(Decimal(step)))


def threshold_message(value: object) -> str:
    return _(
        "The agreement threshold must be above 0 and at most 1 (the paper uses 0.70); "
        "%(value)s would not flag disagreeing raters."
    ) % {"value": value}


def study_agreement_settings_update(
    *,
    study_id: int,
    actor: User | None,
    threshold: Decimal,
    headline_icc: str,
    final_score_rule: str,
    level_ccc_below: Decimal | None = None,
    level_total_over: Decimal | None = None,
) -> RecomputeReport:
    """Change the threshold, headline ICC form, final-score rule or the level rule (beyond the study: also
    route a pair whose CCC is below ``level_ccc_below`` or whose totals differ by more than
    ``level_total_over``; None: that part off), and re-evaluate every flag, routing and final score of the
    study in the same transaction."""
    threshold = Decimal(threshold)
    if level_ccc_below is not None and not Decimal(0) < Decimal(level_ccc_below) <= Decimal(1):
        raise CalibrationError(_("The CCC bound must be above 0 and at most 1."))
    if level_total_over is not None and Decimal(level_total_over) < 0:
        raise CalibrationError(_("The difference of totals cannot be negative."))
    if not THRESHOLD_MIN < threshold <= THRESHOLD_MAX:
        raise CalibrationError(threshold_message(threshold))
    if headline_icc not in HeadlineICC.values:
        raise CalibrationError(_("Unknown ICC form."))
    if final_score_rule not in {value for value, _label in CALIBRATION_RULES}:
        raise CalibrationError(_("Unknown final-score rule."))
    with transaction.atomic():
        study = Study.objects.select_for_update().get(pk=study_id)
        before = {
            "agreement_threshold": str(Decimal(study.agreement_threshold).quantize(Decimal("0.001"))),
            "headline_icc": study.headline_icc,
            "final_score_rule": study.final_score_rule,
            "level_ccc_below": _text(study.level_ccc_below, "0.001"),
            "level_total_over": _text(study.level_total_over, "0.01"),
        }
        study.agreement_threshold = threshold.quantize(Decimal("0.001"))
        study.headline_icc = headline_icc
        study.final_score_rule = final_score_rule
        study.level_ccc_below = _quantized(level_ccc_below, "0.001")
        study.level_total_over = _quantized(level_total_over, "0.01")
        study.save(
            update_fields=[
                "agreement_threshold", "headline_icc", "final_score_rule", "level_ccc_below", "level_total_over"
            ]
        )  # fmt: skip
        after = {
            "agreement_threshold": str(study.agreement_threshold),
            "headline_icc": headline_icc,
            "final_score_rule": final_score_rule,
            "level_ccc_below": _text(study.level_ccc_below, "0.001"),
            "level_total_over": _text(study.level_total_over, "0.01"),
        }
        changes = audit_changes(before=before, after=after)
        if changes:
            audit_record(
                actor=actor, action="study.agreement_settings", target=study, study=study, changes=changes
            )
        return study_agreement_recompute(study_id=study.pk, actor=actor)

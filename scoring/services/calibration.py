"""Downstream of submitted sheets: agreement, calibration routing and final scores."""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction

from scoring.models import (
    AssignmentRole,
    FinalScore,
    FinalScoreRule,
    Response,
    ResponseStatus,
    ScoreSheet,
    SheetStatus,
)


def _primary_sheets(response: Response) -> list[ScoreSheet]:
    return list(
        ScoreSheet.objects.filter(
            assignment__response=response,
            assignment__role=AssignmentRole.PRIMARY,
            assignment__archived_at__isnull=True,
        ).order_by("assignment__created_at", "assignment_id")
    )


def response_scores_recompute(*, response_id: int) -> None:
    """Recompute what follows from the response's sheets (idempotent)."""
    with transaction.atomic():
        response = Response.objects.select_for_update().get(pk=response_id)
        sheets = _primary_sheets(response)
        submitted = [s for s in sheets if s.status == SheetStatus.SUBMITTED]
        if len(submitted) >= 2:
            final_score_set_mean(response=response, sheets=submitted[:2], rule=FinalScoreRule.MEAN_OF_PAIR)
            status = ResponseStatus.FINAL
        else:
            FinalScore.objects.filter(response=response).delete()
            status = ResponseStatus.SCORING if sheets else ResponseStatus.READY
        if response.status != status:
            response.status = status
            response.save(update_fields=["status", "updated_at"])


def final_score_set_mean(
    *, response: Response, sheets: list[ScoreSheet], rule: str, note: str = ""
) -> FinalScore:
    """Final score = mean of the given sheets' totals (halves kept), recording the sheets."""
    n = len(sheets)
    overall = sum(Decimal(s.totals["overall"]) for s in sheets) / n
    step_keys = sheets[0].totals["steps"].keys()
    steps = {k: sum(s.totals["steps"][k] for s in sheets) / n for k in step_keys}
    dims = {k: sum(s.totals["dimensions"][k] for s in sheets) / n for k in sheets[0].totals["dimensions"]}
    final, _ = FinalScore.objects.update_or_create(
        response=response,
        defaults={
            "overall": overall.quantize(Decimal("0.01")),
            "steps": steps,
            "dimensions": dims,
            "rule": rule,
            "calibrated": rule != FinalScoreRule.MEAN_OF_PAIR,
            "note": note,
        },
    )
    final.sheets.set(sheets)
    return final

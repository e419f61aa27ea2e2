"""Reads for the rater drift page (admins and researchers): live primary sheets only."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from calibration.models import FinalScore, ResponseAgreement
from scoring.models import AssignmentRole, ScoreSheet, SheetSource, SheetStatus
from studies.models import ResponseStatus, Study
from studies.rubric import load_rubric
from training.drift import DEFAULT_WINDOW, Submission, rater_drift


def live_primary_sheets(*, study: Study) -> QuerySet[ScoreSheet]:
    """A study's submitted live primary sheets: not training copies, not withdrawn responses (what
    drift follows and what test-retest probes come back from)."""
    return ScoreSheet.objects.filter(
        status=SheetStatus.SUBMITTED,
        assignment__role=AssignmentRole.PRIMARY,
        assignment__archived_at__isnull=True,
        assignment__response__study=study,
        assignment__response__training__isnull=True,
    ).exclude(assignment__response__status=ResponseStatus.WITHDRAWN)


def study_drift(*, study: Study, window: int = DEFAULT_WINDOW) -> dict[str, Any]:
    """Per rater of the study, their drift statistics (``training.drift``), flagged first."""
    rubric = load_rubric(study.rubric_version)
    keys = rubric.dimension_keys
    threshold = float(study.agreement_threshold)
    rows = list(
        live_primary_sheets(study=study)
        .order_by("submitted_at", "pk")
        .values_list(
            "assignment__rater_id",
            "assignment__rater__username",
            "assignment__rater__rater_profile__rater_code",
            "assignment__response_id",
            "submitted_at",
            "created_at",
            "source",
            "totals",
        )  # fmt: skip
    )
    by_response: dict[int, list[tuple[int, dict[str, Any]]]] = {}
    for rater_id, _u, _c, response_id, *_rest, totals in rows:
        by_response.setdefault(response_id, []).append((rater_id, totals.get("dimensions", {})))
    agreements = {
        a.response_id: a for a in ResponseAgreement.objects.filter(response_id__in=list(by_response))
    }
    finals = {f.response_id: f for f in FinalScore.objects.filter(response_id__in=list(by_response))}
    per_rater: dict[int, dict[str, Any]] = {}
    for rater_id, username, code, response_id, submitted, created, source, totals in rows:
        partner = next((d for r, d in by_response[response_id] if r != rater_id), None)
        agreement, final = agreements.get(response_id), finals.get(response_id)
        entry = per_rater.setdefault(rater_id, {"username": username, "code": code or "", "subs": []})
        entry["subs"].append(
            Submission(
                pcc=agreement.pcc if agreement is not None and partner is not None else None,
                own=totals.get("dimensions", {}),
                partner=partner,
                final=final.dimensions if final is not None else None,
                seconds=(submitted - created).total_seconds()
                if source == SheetSource.WEB and submitted
                else None,
                calibrated=bool((agreement and agreement.flagged) or (final and final.calibrated)),
            )
        )
    raters = []
    for entry in per_rater.values():
        drift = rater_drift(entry["subs"], keys=keys, threshold=threshold, window=window)
        raters.append({"username": entry["username"], "code": entry["code"], "drift": drift})
    raters.sort(key=lambda r: (not r["drift"].flagged, r["code"] or "~", r["username"]))
    return {"raters": raters, "rubric": rubric, "threshold": threshold, "window": window}

"""Test-retest probes of a study, per rater (beyond the study): what was served, what was scored,
and the rater's consistency with themself (``training.retest``). For the rater drift page, the
``retest`` command and the API."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from calibration.selectors.agreement_state import sheet_vector
from scoring.models import Assignment, AssignmentRole, ScoreSheet, SheetStatus
from studies.models import Study
from studies.rubric import load_rubric
from training.retest import ProbePair, rater_retest
from training.selectors.training import training_settings_of


def retest_report(*, study: Study) -> dict[str, Any]:
    """The study's probe settings and, per rater with probes, their statistics (alarms first)."""
    settings = training_settings_of(study=study)
    rubric = load_rubric(study.rubric_version)
    probes = list(
        Assignment.all_objects.filter(
            role=AssignmentRole.RETEST, response__study=study, retest_of__isnull=False
        )
        .select_related("rater__rater_profile")
        .order_by("rater_id", "id")
    )
    sheets = {
        s.assignment_id: s
        for s in ScoreSheet.all_objects.filter(
            assignment_id__in=[p.pk for p in probes] + [p.retest_of_id for p in probes],
            status=SheetStatus.SUBMITTED,
        ).only("assignment_id", "totals", "overall")
    }
    per_rater: dict[int, list[ProbePair]] = defaultdict(list)
    served: dict[int, int] = defaultdict(int)
    labels: dict[int, str] = {}
    for probe in probes:
        served[probe.rater_id] += 1
        profile = getattr(probe.rater, "rater_profile", None)
        code = getattr(profile, "rater_code", "") if profile is not None else ""
        labels[probe.rater_id] = (
            f"{probe.rater.get_username()} ({code})" if code else probe.rater.get_username()
        )
        first, again = sheets.get(probe.retest_of_id), sheets.get(probe.pk)  # type: ignore[arg-type]
        if first is None or again is None:
            continue
        per_rater[probe.rater_id].append(
            ProbePair(
                response=probe.response_id,
                first=sheet_vector(first.totals, rubric),
                probe=sheet_vector(again.totals, rubric),
                first_overall=float(first.overall or 0),
                probe_overall=float(again.overall or 0),
            )
        )
    bound = float(settings.retest_alarm_below)
    raters = []
    for rater_id in served:
        stats = rater_retest(per_rater.get(rater_id, []), alarm_below=bound)
        raters.append({"rater": labels[rater_id], "served": served[rater_id], "scored": stats.scored,
                       "icc": stats.icc, "icc_low": stats.ci_low, "icc_high": stats.ci_high,
                       "mean_pcc": stats.mean_pcc, "mean_change": stats.mean_change, "alarm": stats.alarm,
                       "reason": stats.reason})  # fmt: skip
    raters.sort(key=lambda r: (not r["alarm"], r["rater"]))
    return {
        "settings": {
            "percent": settings.retest_percent,
            "after_days": settings.retest_after_days,
            "alarm_below": bound,
        },  # fmt: skip
        "raters": raters,
    }

"""The submitted sheets of a study as the release's workbooks hold them
(``research.release_workbooks``): every human rater's sheet of the study's data (primary and
calibration; not training, not a judge's, not a test-retest probe), with its scores by dimension,
step and total."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from research.release_workbooks import ReleaseSheet
from research.selectors.results import stored_totals, submitted_sheets
from studies.models import Study
from studies.rubric import load_rubric


def release_sheets_get(*, study: Study) -> list[ReleaseSheet]:
    username = f"assignment__rater__{get_user_model().USERNAME_FIELD}"
    rows = (
        submitted_sheets(study)
        .order_by("assignment__response__research_id", "assignment__rater_id")
        .values_list(
            "pk", "rubric_version", "totals", "assignment__response__research_id",
            "assignment__response__scenario__code", "assignment__rater__rater_profile__rater_code", username,
        )
    )  # fmt: skip
    found = []
    for sheet_id, rubric_version, kept, research_id, scenario, rater_code, rater_username in rows.iterator():
        totals = stored_totals(sheet_id=sheet_id, totals=kept, rubric=load_rubric(rubric_version))
        scores = {key: int(value) for key, value in totals["dimensions"].items()}
        scores |= {f"step:{number}": int(value) for number, value in totals["steps"].items()}
        scores["overall"] = int(totals["overall"])
        found.append(
            ReleaseSheet(
                rater=rater_code or rater_username, scenario=scenario, research_id=research_id, scores=scores
            )
        )
    return found

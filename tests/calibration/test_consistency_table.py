"""consistency_table: the study's Table 6, before and after calibration."""

import pytest
from scipy.stats import pearsonr

from calibration.models import GroupAgreement
from calibration.selectors.agreement import consistency_table
from calibration.selectors.agreement_state import sheet_vector
from calibration.services.calibration import response_scores_recompute
from scoring.models import Assignment
from studies.rubric import load_rubric
from tests.factories import (
    mirrored_changes,
    rater,
    reference_changes,
    scoring_group,
    sheet_submitted,
    varied_changes,
)


@pytest.fixture
def study_with_one_disagreement(db):
    """Four responses: three agreeing pairs, one disagreeing pair (flagged)."""
    rubric = load_rubric()
    calibrator = rater("cal-1", can_calibrate=True)
    group, responses = scoring_group(n_responses=4)
    sheets = []
    for shift, response in enumerate(responses[:3]):
        a = sheet_submitted(group.rater_a, response, varied_changes(reference_changes(3), shift), group=group)
        b = sheet_submitted(
            group.rater_b, response, varied_changes(reference_changes(4), shift + 1), group=group
        )
        sheets.append((a, b))
    flagged = responses[3]
    a = sheet_submitted(group.rater_a, flagged, varied_changes(reference_changes(3), -2), group=group)
    b = sheet_submitted(
        group.rater_b,
        flagged,
        mirrored_changes(varied_changes(reference_changes(3), -2), rubric),
        group=group,
    )
    sheets.append((a, b))
    response_scores_recompute(response_id=flagged.pk)
    return group, responses, sheets, calibrator, rubric


def _r(x, y, rubric):
    return float(pearsonr(sheet_vector(x.totals, rubric), sheet_vector(y.totals, rubric)).statistic)


def test_before_calibration_and_pending_after(study_with_one_disagreement):
    group, responses, sheets, _calibrator, rubric = study_with_one_disagreement
    table = consistency_table(study=group.study)
    pccs = [_r(a, b, rubric) for a, b in sheets]
    pcc_row, icc_row = table["rows"]
    assert pcc_row["metric"] == "PCC" and pcc_row["n"] == 4
    assert pcc_row["before"] == pytest.approx(sum(pccs) / 4)
    assert pcc_row["after"] == pytest.approx(sum(pccs) / 4)  # nothing calibrated yet
    headline = GroupAgreement.objects.get(group=group, stage="before").forms["ICC3k"]["icc"]
    assert icc_row["metric"] == "ICC" and icc_row["before"] == pytest.approx(headline)
    assert (table["flagged"], table["calibrated"], table["pending"], table["complete"]) == (1, 0, 1, False)
    assert table["headline_icc"] == "ICC3k" and table["icc_unit"] == "group" and table["threshold"] == 0.65


def test_after_calibration_uses_the_calibrated_pair(study_with_one_disagreement):
    group, responses, sheets, calibrator, rubric = study_with_one_disagreement
    flagged = responses[3]
    a, _b = sheets[3]
    calibration = Assignment.objects.get(response=flagged, role="calibration")
    c = sheet_submitted(calibrator, flagged, varied_changes(reference_changes(4), -2), assignment=calibration)
    response_scores_recompute(response_id=flagged.pk)
    table = consistency_table(study=group.study)
    pcc_row, icc_row = table["rows"]
    before = [_r(x, y, rubric) for x, y in sheets]
    after = before[:3] + [_r(c, a, rubric)]  # the calibrator and the closer rater (A)
    assert pcc_row["before"] == pytest.approx(sum(before) / 4)
    assert pcc_row["after"] == pytest.approx(sum(after) / 4)
    assert pcc_row["after"] > pcc_row["before"]
    stored_after = GroupAgreement.objects.get(group=group, stage="after").forms["ICC3k"]["icc"]
    assert icc_row["after"] == pytest.approx(stored_after)
    assert icc_row["after"] != icc_row["before"]
    assert (table["calibrated"], table["pending"], table["complete"]) == (1, 0, True)


def test_an_empty_study_has_no_values(db):
    from tests.factories import StudyFactory

    table = consistency_table(study=StudyFactory())
    assert [(r["before"], r["after"], r["n"]) for r in table["rows"]] == [(None, None, 0), (None, None, 0)]
    assert table["responses"] == 0 and table["complete"]

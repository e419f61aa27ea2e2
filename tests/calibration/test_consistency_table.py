"""consistency_table: the study's Table 6, before and after calibration."""

import numpy as np
import pytest
import scipy.stats as st
from scipy.stats import pearsonr

from calibration.models import GroupAgreement, ResponseAgreement
from calibration.selectors.agreement import consistency_table
from calibration.selectors.agreement_state import sheet_vector
from calibration.services.calibration import response_scores_recompute
from calibration.statistics import mean_ci95, small_sample_warning
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
    pcc_row, released_row, icc_row, icc2k_row = table["rows"]
    assert pcc_row["metric"] == "PCC" and pcc_row["n"] == 4
    # the release's script's normalization (Purpose / 2) beside it, labelled, before only
    released = [ResponseAgreement.objects.get(response=r).pcc_as_released for r in responses]
    assert None not in released and released != pytest.approx(pccs)
    assert released_row["before"] == pytest.approx(sum(released) / 4) and released_row["after"] is None
    assert (released_row["headline"], pcc_row["headline"]) == (False, True)
    assert released_row["pcc_label"].startswith("as the release's script (Purpose / 2)")
    assert pcc_row["pcc_label"].startswith("the sheet's maxima")
    assert pcc_row["before"] == pytest.approx(sum(pccs) / 4)
    assert pcc_row["after"] == pytest.approx(sum(pccs) / 4)  # nothing calibrated yet
    headline = GroupAgreement.objects.get(group=group, stage="before").forms["ICC3k"]["icc"]
    assert icc_row["metric"] == "ICC" and icc_row["before"] == pytest.approx(headline)
    # the paper's absolute-agreement form beside the release's ICC3k, labelled, not a headline
    assert (icc_row["form"], icc_row["headline"], icc2k_row["form"], icc2k_row["headline"]) == (
        "ICC3k",
        True,
        "ICC2k",
        False,
    )
    icc2k = GroupAgreement.objects.get(group=group, stage="before").forms["ICC2k"]["icc"]
    assert icc2k_row["before"] == pytest.approx(icc2k) and icc2k != pytest.approx(headline)
    assert icc_row["form_label"].startswith("ICC3k (headline; as the release")
    assert icc2k_row["form_label"].startswith("ICC2k (the paper's absolute agreement")
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
    pcc_row, _released, icc_row, _icc2k = table["rows"]
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
    assert [(r["before"], r["after"], r["n"]) for r in table["rows"]] == [(None, None, 0)] * 4
    assert table["responses"] == 0 and table["complete"]


def test_small_samples_carry_n_ci_and_a_warning(study_with_one_disagreement):
    """Four responses: neither the mean PCC nor the ICC may stand as a bare headline."""
    group, _responses, sheets, _calibrator, rubric = study_with_one_disagreement
    table = consistency_table(study=group.study)
    pcc_row, _released, icc_row, _icc2k = table["rows"]
    pccs = [_r(a, b, rubric) for a, b in sheets]
    low, high = st.t.interval(0.95, len(pccs) - 1, loc=np.mean(pccs), scale=st.sem(pccs))
    assert pcc_row["ci_before"] == pytest.approx([low, high])
    assert pcc_row["n_responses"] == 4 and pcc_row["warning"] == "fewer than 5 responses"
    stored = GroupAgreement.objects.get(group=group, stage="before")
    assert icc_row["ci_before"] == pytest.approx(stored.forms["ICC3k"]["ci95"])  # one group: its own CI
    assert icc_row["n_responses"] == 4 and icc_row["warning"] == "fewer than 5 responses"


def test_small_sample_rule():
    assert small_sample_warning(4, 0.5, 0.6) == "fewer than 5 responses"
    assert small_sample_warning(5, None, None) == "no confidence interval"
    assert small_sample_warning(10, -0.2, 0.81) == "95% CI wider than 1"
    assert small_sample_warning(10, -0.2, 0.8) == ""  # exactly 1 wide is still shown
    assert mean_ci95([0.5]) == (None, None)


def test_after_is_defined_and_the_selection_effect_is_shown(study_with_one_disagreement):
    group, responses, sheets, calibrator, rubric = study_with_one_disagreement
    flagged = responses[3]
    a, b = sheets[3]
    calibration = Assignment.objects.get(response=flagged, role="calibration")
    c = sheet_submitted(calibrator, flagged, varied_changes(reference_changes(4), -2), assignment=calibration)
    response_scores_recompute(response_id=flagged.pk)
    table = consistency_table(study=group.study)
    selection = table["selection"]
    with_a, with_b = _r(c, a, rubric), _r(c, b, rubric)
    assert selection["n"] == 1
    assert selection["pair"] == pytest.approx(_r(a, b, rubric))
    assert selection["calibrator_a"] == pytest.approx(with_a)
    assert selection["calibrator_b"] == pytest.approx(with_b)
    assert selection["calibrator_mean"] == pytest.approx((with_a + with_b) / 2)
    assert selection["calibrator_closer"] == pytest.approx(max(with_a, with_b))
    assert selection["calibrator_closer"] > selection["calibrator_mean"]  # the selection effect
    assert "closer" in table["after_definition"]
    assert table["rule"] == "calibrator_and_closer" and table["rule_provenance"].startswith("our reading")


def test_dashboard_and_research_page_show_the_warning_and_the_definitions(
    study_with_one_disagreement, client
):
    from tests.factories import UserFactory

    group, *_ = study_with_one_disagreement
    client.force_login(UserFactory(username="res-t6", role="Researcher"))
    for url in ("/research/agreement/", "/research/"):
        html = client.get(url, {"study": group.study.pk}).content.decode()
        table6 = html[html.index("Table 6") :]
        assert "Not a headline: fewer than 5 responses" in table6, url
        assert "<strong>" not in table6[: table6.index("</table>")], url  # no bold headline number
        assert "our reading" in table6 and "After calibration: each calibrated response" in table6, url
        assert "ICC (ICC2k, the paper's absolute agreement)" in table6, url
        assert "ICC (ICC3k, headline, as the release (consistency))" in table6, url
        if url == "/research/agreement/":  # the per-group ICC cells carry the warning too
            assert "n = 4: fewer than 5 responses" in html
            assert '<span class="muted icc-beside">ICC2k 0.' in html  # beside each headline cell
    scenario = client.get(
        f"/research/agreement/{group.study.pk}/scenario/{group.scenario.pk}/"
    ).content.decode()
    assert "n = 4: fewer than 5 responses" in scenario  # the headline form on the drill-down


def test_settings_page_labels_every_rule_by_its_provenance(db, client):
    from tests.factories import StudyFactory, UserFactory

    study = StudyFactory()
    client.force_login(UserFactory(username="admin-rules", role="Admin"))
    html = client.get(f"/manage/studies/{study.pk}/agreement/").content.decode()
    assert "Calibrator and the closer primary rater, averaged (our reading:" in html
    assert html.count("our option: not in the paper or the release") == 2
    assert "(r > threshold): a PCC equal to the threshold goes to calibration" in html


def test_a_before_only_row_is_not_warned_of_its_missing_after_interval():
    """Issue 42: the release script's PCC row (before calibration only) said "no confidence
    interval" where its before interval existed."""
    from calibration.selectors.consistency import _row

    before = [0.8, 0.82, 0.85, 0.9, 0.88, 0.86]
    row = _row("PCC", before, [], len(before), (0.80, 0.90), (None, None))
    assert row["warning"] == "" and row["after"] is None
    both = _row("PCC", before, [0.9] * 6, len(before), (0.80, 0.90), (None, None))
    assert both["warning"] == "no confidence interval"  # an after without its interval still is

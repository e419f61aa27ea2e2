"""ICC: the six Shrout & Fleiss forms through the product's own code path."""

import numpy as np
import pandas as pd
import pytest

from calibration.models import GroupAgreement
from calibration.selectors.agreement_state import sheet_vector
from calibration.services.calibration import response_scores_recompute
from calibration.statistics import icc, long_rows, memo_clear
from scoring.models import ScoreSheet
from studies.rubric import load_rubric
from tests.factories import (
    mirrored_changes,
    reference_changes,
    scoring_group,
    sheet_submitted,
    varied_changes,
)

# Shrout & Fleiss (1979), Table 2: 6 targets rated by 4 judges, and their Table 4 results.
SHROUT_FLEISS = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
PUBLISHED = {"ICC1": 0.17, "ICC2": 0.29, "ICC3": 0.71, "ICC1k": 0.44, "ICC2k": 0.62, "ICC3k": 0.91}


@pytest.fixture(autouse=True)
def _fresh_memo():
    memo_clear()
    yield
    memo_clear()


def _anova_iccs(table: np.ndarray) -> dict[str, float]:
    """An independent oracle: the six forms from the two-way ANOVA mean squares."""
    n, k = table.shape
    grand = table.mean()
    ss_rows = k * ((table.mean(axis=1) - grand) ** 2).sum()
    ss_cols = n * ((table.mean(axis=0) - grand) ** 2).sum()
    ss_err = ((table - grand) ** 2).sum() - ss_rows - ss_cols
    msr, msc = ss_rows / (n - 1), ss_cols / (k - 1)
    mse = ss_err / ((n - 1) * (k - 1))
    msw = (ss_cols + ss_err) / (n * (k - 1))
    return {
        "ICC1": (msr - msw) / (msr + (k - 1) * msw),
        "ICC2": (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n),
        "ICC3": (msr - mse) / (msr + (k - 1) * mse),
        "ICC1k": (msr - msw) / msr,
        "ICC2k": (msr - mse) / (msr + (msc - mse) / n),
        "ICC3k": (msr - mse) / msr,
    }


def test_shrout_fleiss_example_gives_the_published_values():
    result = icc(
        (target, judge, score) for target, row in enumerate(SHROUT_FLEISS) for judge, score in enumerate(row)
    )
    assert result.reason == "" and (result.n_targets, result.n_raters) == (6, 4)
    assert {name: round(form.icc, 2) for name, form in result.forms.items()} == PUBLISHED
    for form in result.forms.values():
        assert form.ci_low < form.icc < form.ci_high
    assert (result.forms["ICC3k"].ci_low, result.forms["ICC3k"].ci_high) == (0.68, 0.99)
    assert {name: round(v, 2) for name, v in _anova_iccs(np.array(SHROUT_FLEISS, float)).items()} == PUBLISHED


def test_several_values_per_target_and_rater_are_averaged_as_in_the_study():
    """23 normalized values per response and rater whose mean is the judge's score."""
    rng = np.random.default_rng(7)
    rows = []
    for target, row in enumerate(SHROUT_FLEISS):
        for judge, score in enumerate(row):
            noise = rng.normal(size=23)
            rows += long_rows(target, judge, list(score / 10 + noise - noise.mean()))
    result = icc(rows)
    assert {name: round(form.icc, 2) for name, form in result.forms.items()} == PUBLISHED


def test_older_pingouin_labels_are_mapped_too(monkeypatch):
    import pingouin

    labels = ["ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"]
    fake = pd.DataFrame(
        {
            "Type": labels,
            "ICC": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
            "F": 2.0,
            "df1": 5,
            "df2": 15,
            "pval": 0.01,
            "CI95%": [np.array([0.0, 0.9])] * 6,
        }
    )
    monkeypatch.setattr(pingouin, "intraclass_corr", lambda **kwargs: fake)
    result = icc((t, j, s) for t, row in enumerate(SHROUT_FLEISS) for j, s in enumerate(row))
    assert result.forms["ICC3k"].icc == 0.6 and result.forms["ICC1"].icc == 0.1
    assert (result.forms["ICC2"].ci_low, result.forms["ICC2"].ci_high) == (0.0, 0.9)


@pytest.mark.parametrize(
    ("rows", "reason"),
    [
        ([], "fewer than 3 responses"),
        ([(1, "a", 0.5), (1, "b", 0.6), (2, "a", 0.1), (2, "b", 0.3)], "fewer than 3 responses"),
        ([(t, "a", t / 10) for t in range(5)], "fewer than 2 raters"),
        ([(t, r, 0.5) for t in range(4) for r in "ab"], "no variance"),
        # target 3 lacks rater b: listwise deletion leaves 2 complete targets
        (
            [(1, "a", 0.5), (1, "b", 0.6), (2, "a", 0.1), (2, "b", 0.3), (3, "a", 0.9)],
            "fewer than 3 responses",
        ),
    ],
)
def test_degenerate_tables_give_a_reason(rows, reason):
    result = icc(rows)
    assert result.reason == reason and result.forms == {}


def test_stored_group_icc_matches_the_anova_of_the_sheets(db):
    """Six responses scored by a pair through the services: GroupAgreement holds
    the six forms of the mean normalized scores per response and rater."""
    rubric = load_rubric()
    group, responses = scoring_group(n_responses=6)
    for shift, response in enumerate(responses):
        sheet_submitted(group.rater_a, response, varied_changes(reference_changes(3), shift - 3), group=group)
        sheet_submitted(
            group.rater_b, response, varied_changes(reference_changes(4), 2 * shift - 4), group=group
        )
    response_scores_recompute(response_id=responses[0].pk)
    table = np.array(
        [
            [
                np.mean(sheet_vector(sheet.totals, rubric))
                for sheet in (
                    ScoreSheet.objects.get(assignment__response=r, assignment__rater=group.rater_a),
                    ScoreSheet.objects.get(assignment__response=r, assignment__rater=group.rater_b),
                )
            ]
            for r in responses
        ]
    )
    expected = _anova_iccs(table)
    stored = GroupAgreement.objects.get(group=group, stage="before")
    assert stored.n_responses == 6 and stored.reason == ""
    assert set(stored.forms) == set(PUBLISHED)
    for name, value in expected.items():
        assert stored.forms[name]["icc"] == pytest.approx(value, abs=1e-9)
        low, high = stored.forms[name]["ci95"]
        assert low <= high
    scenario_wide = GroupAgreement.objects.get(scenario=group.scenario, group=None, stage="before")
    assert scenario_wide.forms["ICC3k"]["icc"] == pytest.approx(expected["ICC3k"], abs=1e-9)
    # Nothing calibrated: the after-calibration ICC is the same.
    assert GroupAgreement.objects.get(group=group, stage="after").forms == stored.forms


def test_fewer_than_three_scored_responses_store_a_reason(db):
    group, responses = scoring_group(n_responses=2)
    for response in responses:
        sheet_submitted(group.rater_a, response, reference_changes(3), group=group)
        sheet_submitted(
            group.rater_b, response, mirrored_changes(reference_changes(3), load_rubric()), group=group
        )
    response_scores_recompute(response_id=responses[0].pk)
    stored = GroupAgreement.objects.get(group=group, stage="before")
    assert stored.reason == "fewer than 3 responses" and stored.forms == {} and stored.n_responses == 2


def test_equals_pingouin_on_the_raw_long_table_float_for_float():
    """icc() hands pingouin integer codes for the labels (faster to build and group): the
    forms are pingouin's own on the long table with the original labels."""
    import warnings

    import pingouin

    rng = np.random.default_rng(11)
    rows = []
    for target in (907, 15, 311, 42, 88, 5, 260):  # response ids, not in order
        truth = rng.uniform(0, 1, size=23)
        for slot in ("b", "a"):
            rows += long_rows(target, slot, list(np.clip(truth + rng.normal(0, 0.15, 23), 0, 1)))
    rows += long_rows(999, "a", [0.5] * 23)  # no second rater: dropped listwise
    frame = pd.DataFrame(rows, columns=["target", "rater", "score"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = pingouin.intraclass_corr(
            data=frame, targets="target", raters="rater", ratings="score", nan_policy="omit"
        )
    result = icc(rows)
    assert (result.n_targets, result.n_raters) == (7, 2)
    assert [form.icc for form in result.forms.values()] == [float(v) for v in table["ICC"]]
    assert [form.p for form in result.forms.values()] == [float(v) for v in table["pval"]]
    assert [[form.ci_low, form.ci_high] for form in result.forms.values()] == [
        [float(low), float(high)] for low, high in table["CI95"]
    ]
    relabelled = icc([(target, {"a": 17, "b": 4}[slot], score) for target, slot, score in rows])
    assert relabelled.forms_dict() == {  # rater ids sort the other way round: the same forms
        name: form.as_dict()
        for name, form in icc([(t, {"a": "y", "b": "x"}[s], v) for t, s, v in rows]).forms.items()
    }


def test_responses_with_equal_means_give_no_coefficient_not_rounding_noise():
    """Every response's mean is the same (reached through sums that round differently): the
    between-responses mean square is 0 but for rounding, and pingouin's coefficient is noise:
    -1e15 when the raters differ, 1.0 when they agree (both seen on the dashboard's rubric parts).
    No coefficient, no interval, a reason."""
    thirds = [0.1, 0.2, 0.7 / 3, 0.3]
    differing = []
    for target in range(5):
        low = thirds[target % len(thirds)]
        differing += [(target, "a", low), (target, "b", 1 - low)]  # each response's mean: 0.5
    agreeing = [(t, r, v) for t, v in enumerate([0.1 + 0.2, 0.3, 0.3, 0.1 + 0.2, 0.3]) for r in "ab"]
    for rows in (differing, agreeing):
        result = icc(rows)
        assert result.reason == "no variance" and result.forms == {}
    # perfect agreement on responses that differ keeps its coefficient of 1
    assert icc([(t, r, t / 10) for t in range(5) for r in "ab"]).form("ICC3k").icc == pytest.approx(1)

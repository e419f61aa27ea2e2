"""The judge comparison computed by the humans' functions equals direct scipy/pingouin calls
on the same numbers, and human statistics never see the judge."""

import math

import pandas as pd
import pingouin
import pytest
from scipy.stats import pearsonr

from calibration.models import FinalScore, ResponseAgreement
from judging.comparison import mcnemar_exact, same_family
from judging.selectors.comparison import judge_comparison_get, judges_with_sheets
from studies.rubric import load_rubric

pytestmark = pytest.mark.django_db


def _vector(totals):
    rubric = load_rubric()
    return [totals["dimensions"][d.key] / d.max for d in rubric.dimensions]


def test_per_response_pcc_equals_pearsonr(judged):
    judge, group, sheets = judged
    result = judge_comparison_get(study=group.study, judge=judge)
    assert result.n_judged == result.n_paired == 4
    by_id = {row.item.response_id: row for row in result.rows}
    for response, a, b, j in sheets:
        row = by_id[response.pk]
        assert row.judge_a.r == pytest.approx(
            pearsonr(_vector(j.totals), _vector(a.totals)).statistic, abs=1e-12
        )
        assert row.judge_b.r == pytest.approx(
            pearsonr(_vector(j.totals), _vector(b.totals)).statistic, abs=1e-12
        )
        assert row.human_pair.r == pytest.approx(
            pearsonr(_vector(a.totals), _vector(b.totals)).statistic, abs=1e-12
        )
        # the human pair's PCC is the one the agreement recompute stored
        assert row.human_pair.r == pytest.approx(ResponseAgreement.objects.get(response=response).pcc)
        final = FinalScore.objects.filter(response=response).first()
        if final is not None:
            rubric = load_rubric()
            fv = [float(final.dimensions[d.key]) / d.max for d in rubric.dimensions]
            assert row.judge_final.r == pytest.approx(pearsonr(_vector(j.totals), fv).statistic, abs=1e-12)
        else:
            assert row.judge_final is None
    # the disagreeing pair has no final score until calibrated; the others do
    assert sum(1 for row in result.rows if row.judge_final is not None) == 3


def _pingouin(sheets, raters):
    records = []
    for response, a, b, j in sheets:
        named = {"a": a, "b": b, "judge": j}
        for label in raters:
            for value in _vector(named[label].totals):
                records.append({"t": response.pk, "r": label, "s": value})
    table = pingouin.intraclass_corr(data=pd.DataFrame(records), targets="t", raters="r", ratings="s")
    return dict(zip(["ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"], table["ICC"], strict=True))


def test_scenario_icc_equals_pingouin(judged):
    judge, group, sheets = judged
    (scenario,) = judge_comparison_get(study=group.study, judge=judge).iccs
    assert scenario.scenario == group.scenario.code
    for result, raters in (
        (scenario.humans, ("a", "b")),
        (scenario.judge_added, ("a", "b", "judge")),
        (scenario.judge_for_a, ("judge", "b")),
        (scenario.judge_for_b, ("a", "judge")),
    ):
        direct = _pingouin(sheets, raters)
        assert result.n_targets == 4 and result.n_raters == len(raters)
        for form, value in direct.items():
            assert result.form(form).icc == pytest.approx(value, abs=1e-12)


def test_dimension_differences_are_judge_minus_pair_mean(judged):
    judge, group, sheets = judged
    result = judge_comparison_get(study=group.study, judge=judge)
    overall = next(d for d in result.steps if d.key == "overall").value
    diffs = [j.totals["overall"] - (a.totals["overall"] + b.totals["overall"]) / 2 for _, a, b, j in sheets]
    assert overall.n == 4
    assert overall.mean == pytest.approx(sum(diffs) / 4)
    from scipy.stats import t

    sd = pd.Series(diffs).std()
    half = t.ppf(0.975, 3) * sd / math.sqrt(4)
    assert overall.ci_low == pytest.approx(sum(diffs) / 4 - half)
    assert overall.warning == "fewer than 5 responses"
    focus = next(d for d in result.dimensions if d.key == "s2.focus").value
    expected = [
        j.totals["dimensions"]["s2.focus"]
        - (a.totals["dimensions"]["s2.focus"] + b.totals["dimensions"]["s2.focus"]) / 2
        for _, a, b, j in sheets
    ]
    assert focus.mean == pytest.approx(sum(expected) / 4)


def test_threshold_counts_and_mcnemar(judged):
    judge, group, sheets = judged
    result = judge_comparison_get(study=group.study, judge=judge)
    threshold = float(group.study.agreement_threshold)

    def under(x, y):
        return not pearsonr(_vector(x.totals), _vector(y.totals)).statistic > threshold

    for comparison in result.thresholds:
        human = [under(a, b) for _, a, b, _ in sheets]
        judge_pair = [under(j, b) if comparison.replaces == "a" else under(a, j) for _, a, b, j in sheets]
        assert comparison.n == 4
        assert comparison.human_below == sum(human) >= 1  # the mirrored pair
        assert comparison.judge_below == sum(judge_pair)
        only_h = sum(1 for h, x in zip(human, judge_pair, strict=True) if h and not x)
        only_j = sum(1 for h, x in zip(human, judge_pair, strict=True) if x and not h)
        assert (comparison.only_human_below, comparison.only_judge_below) == (only_h, only_j)
        assert comparison.human_rate == sum(human) / 4


def test_mcnemar_exact_is_the_binomial_test():
    from scipy.stats import binomtest

    assert mcnemar_exact(1, 7) == pytest.approx(binomtest(1, 8, 0.5).pvalue)
    assert mcnemar_exact(0, 0) is None


def test_self_preference_splits_the_judges_own_model(judged):
    judge, group, sheets = judged
    result = judge_comparison_get(study=group.study, judge=judge)
    own, other = result.self_preference
    assert (own.own, own.n, other.own, other.n) == (True, 1, False, 3)
    first = next(row for row in result.rows if row.item.response_id == sheets[0][0].pk)
    assert first.item.own_family
    assert own.agreement.mean == pytest.approx((first.judge_a.r + first.judge_b.r) / 2)


def test_provider_family_matches_a_name_prefix():
    kwargs = {"judge_endpoint_id": 1, "endpoint_id": 2, "endpoint_name": "Qwen3 8B"}
    assert same_family(judge_family="qwen", endpoint_model_name="Qwen/qwen3-8b", **kwargs)
    assert same_family(judge_family="", endpoint_model_name="x", **{**kwargs, "endpoint_id": 1})
    assert not same_family(judge_family="", endpoint_model_name="qwen3", **kwargs)
    assert not same_family(judge_family="gpt", endpoint_model_name="Qwen/qwen3-8b", **kwargs)


def test_judge_sheets_change_no_human_statistic(judged):
    judge, group, sheets = judged
    assert judges_with_sheets(study=group.study) == [judge]
    # the recompute ran after the judge's sheets existed: the pair and the final score stay human
    for response, a, b, _ in sheets[:3]:
        final = FinalScore.objects.get(response=response)
        assert set(final.sheets.values_list("pk", flat=True)) == {a.pk, b.pk}

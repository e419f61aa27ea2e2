"""Self-preference as a test (issue 39): a judge that favours its own model's responses is found,
with a permutation p-value and Hedges' g matching a direct computation; one that does not, is not."""

from __future__ import annotations

import numpy as np
import pytest

from judging.self_preference import self_preference_test


def test_a_judge_that_favours_its_own_responses_is_found():
    rng = np.random.default_rng(5)
    own, others = rng.normal(4.0, 3.0, 40), rng.normal(0.0, 3.0, 120)  # 4 points kinder to its own
    found = self_preference_test(own=own, others=others)
    assert found.difference == pytest.approx(own.mean() - others.mean()) and found.difference > 2
    assert found.p_value < 0.001
    pooled = np.sqrt((39 * own.var(ddof=1) + 119 * others.var(ddof=1)) / 158)
    assert found.hedges_g == pytest.approx((own.mean() - others.mean()) / pooled * (1 - 3 / (4 * 160 - 9)))


def test_a_fair_judge_is_not_found_at_the_nominal_rate():
    rng = np.random.default_rng(6)
    rejected = sum(
        self_preference_test(own=rng.normal(0, 3, 30), others=rng.normal(0, 3, 90), draws=999, seed=k).p_value
        < 0.05
        for k in range(100)
    )
    assert rejected <= 10  # 5% expected; 10 is about two standard errors above


def test_too_few_responses_leave_it_undefined():
    result = self_preference_test(own=[1.0], others=[0.0, 1.0, 2.0])
    assert result.p_value is None and result.own_mean == 1.0 and result.others_mean == 1.0

"""The judge's calibration curve (issue 39): the judge's mean per human score level, with the
study's own t-interval."""

from __future__ import annotations

import pytest
from scipy import stats

from judging.calibration_curve import calibration_curve


def test_each_level_gets_the_judges_mean_and_interval():
    pairs = [(0, 1.0), (0.2, 1.5), (1, 1.0), (1.1, 2.0), (0.9, 3.0), (3.6, 4.0)]
    points = calibration_curve(pairs=pairs)
    assert [(p.level, p.n) for p in points] == [(0, 2), (1, 3), (4, 1)]
    one = points[1]
    assert one.judge_mean == pytest.approx(2.0)
    half = stats.t.ppf(0.975, 2) * stats.tstd([1.0, 2.0, 3.0]) / 3**0.5
    assert (one.low, one.high) == pytest.approx((2.0 - half, 2.0 + half))
    assert points[2].low is None  # one response: no interval
    # levels a step apart: a 0-1 normalised score in tenths
    assert [p.level for p in calibration_curve(pairs=[(0.44, 0.5), (0.46, 0.6)], step=0.1)] == pytest.approx(
        [0.4, 0.5]
    )
    with pytest.raises(ValueError):
        calibration_curve(pairs=pairs, step=0)

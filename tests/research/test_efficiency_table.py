"""Efficiency (per-solution quality) and Step-3 blanks per model and condition (pure)."""

import pytest

from research.results import ScoreRecord, efficiency_table, significance_mark


def _rec(rid, cond, flu, flex, elab, orig):
    dims = {"s1.fluency": flu, "s1.flexibility": flex, "s1.elaboration": elab, "s1.originality": orig}
    return ScoreRecord(rid, f"{cond}05_FS{rid}", f"FS{rid}", "05", "kimi-k2", cond, 100.0, {}, dims)


def test_efficiency_is_the_mean_of_per_response_ratios_and_skips_zero_fluency():
    rows = efficiency_table(
        [_rec(1, "A", 8, 6, 12, 4), _rec(2, "A", 4, 4, 2, 2), _rec(3, "A", 0, 0, 0, 0)], steps=(1,)
    )
    found = {r.metric: (r.value, r.n) for r in rows}
    assert found["Flexibility/Fluency"] == (pytest.approx((6 / 8 + 1) / 2), 2)
    assert found["Elaboration/Fluency"] == (pytest.approx((12 / 8 + 2 / 4) / 2), 2)
    assert found["Originality/Fluency"] == (pytest.approx((4 / 8 + 2 / 4) / 2), 2)


def test_marks_as_the_paper_prints_them_and_the_p_005_option():
    ps = (0.001, 0.0099, 0.01, 0.049, 0.05, None)
    assert [significance_mark(p) for p in ps] == ["**", "**", "", "", "", ""]
    assert [significance_mark(p, "both") for p in ps] == ["**", "**", "*", "*", "", ""]

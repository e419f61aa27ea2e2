"""Reliability per dimension and per step (issue 38, beyond the study): each part's ICC is
pingouin's on that part's values and its alpha the ``krippendorff`` package's; a dimension the
raters score at random stands out as the least reliable."""

import krippendorff
import numpy as np
import pandas as pd
import pingouin
import pytest

from calibration.dimensions import DIMENSION, STEP, parts_reliability

STEPS = {"s1.a": 1, "s1.b": 1, "s2.a": 2, "s2.noisy": 2}
POINTS = 4  # each dimension scored 0-3, normalised by 3


def _rows(seed=9, responses=40):
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(responses):
        level = rng.integers(0, POINTS)
        for slot in ("a", "b"):
            for dimension in STEPS:
                if dimension == "s2.noisy":
                    value = rng.integers(0, POINTS)  # the raters do not agree at all here
                else:
                    value = int(np.clip(level + rng.integers(-1, 2) * (rng.random() < 0.3), 0, POINTS - 1))
                rows.append((f"R{r}", slot, dimension, value / (POINTS - 1)))
    return rows


def test_each_part_is_pingouins_icc_and_the_packages_alpha():
    rows = _rows()
    parts = {p.part: p for p in parts_reliability(rows, steps=STEPS, form="ICC3k")}
    assert list(parts) == ["s1.a", "s1.b", "s2.a", "s2.noisy", "Step 1", "Step 2"]
    assert [parts[k].kind for k in parts] == [DIMENSION] * 4 + [STEP] * 2
    frame = pd.DataFrame(rows, columns=["response", "slot", "dimension", "value"])
    for dimension in STEPS:
        one = frame[frame["dimension"] == dimension]
        table = pingouin.intraclass_corr(data=one, targets="response", raters="slot", ratings="value")
        expected = table[table["Type"].isin(["ICC3k", "ICC(C,k)"])].iloc[0]  # pingouin 0.7 says ICC(C,k)
        assert parts[dimension].icc == pytest.approx(expected["ICC"])
        assert [parts[dimension].icc_low, parts[dimension].icc_high] == pytest.approx(
            list(expected["CI95"] if "CI95" in expected else expected["CI95%"])
        )
        matrix = one.pivot(index="slot", columns="response", values="value").to_numpy()
        ordinal = krippendorff.alpha(reliability_data=matrix, level_of_measurement="ordinal")
        assert (
            parts[dimension].alpha.alpha == pytest.approx(ordinal)
            and parts[dimension].alpha.level == "ordinal"
        )
    step2 = frame[frame["dimension"].isin(["s2.a", "s2.noisy"])].groupby(["slot", "response"])["value"].mean()
    interval = krippendorff.alpha(
        reliability_data=step2.unstack().to_numpy(), level_of_measurement="interval"
    )
    assert (
        parts["Step 2"].alpha.alpha == pytest.approx(interval) and parts["Step 2"].alpha.level == "interval"
    )


def test_the_dimension_scored_at_random_is_the_least_reliable():
    parts = [p for p in parts_reliability(_rows(), steps=STEPS, form="ICC3k") if p.kind == DIMENSION]
    worst = min(parts, key=lambda p: p.alpha.alpha)
    assert worst.part == "s2.noisy" and worst.alpha.ci_low < 0.3 < min(
        p.alpha.alpha for p in parts if p is not worst
    )
    assert min(parts, key=lambda p: p.icc).part == "s2.noisy"

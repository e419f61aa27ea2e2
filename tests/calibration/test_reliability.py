"""Agreement beyond the study (issue 38): Krippendorff's alpha against the coincidence-matrix
computation written out here and against Krippendorff's published example; Lin's CCC against its
closed form for a uniformly harsher rater; the level-disagreement rule."""

import itertools
import math

import krippendorff
import numpy as np
import pytest

from calibration import reliability
from calibration.reliability import LevelRule, alpha, ccc, level_disagreement

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the 4 observers x 12 units
# example (None: no value); the paper gives alpha = 0.849 (interval) and 0.815 (ordinal).
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def _rows(matrix):
    return [
        (unit, rater, value)
        for rater, values in enumerate(matrix)
        for unit, value in enumerate(values)
        if value is not None
    ]


def _interval_alpha_by_hand(rows):
    """1 - D_o / D_e over the pairable values, each unit's pairs weighted 1 / (m_u - 1)."""
    units = {}
    for unit, _rater, value in rows:
        units.setdefault(unit, []).append(float(value))
    units = {u: v for u, v in units.items() if len(v) >= 2}
    pooled = [v for values in units.values() for v in values]
    n = len(pooled)
    observed = sum(
        (a - b) ** 2 / (len(values) - 1)
        for values in units.values()
        for a, b in itertools.permutations(values, 2)
    )
    expected = sum((a - b) ** 2 for a, b in itertools.permutations(pooled, 2)) / (n - 1)
    return 1 - observed / expected


def test_alpha_matches_krippendorffs_published_example():
    rows = _rows(KRIPPENDORFF_2011)
    assert round(alpha(rows, level="interval", draws=0).alpha, 3) == 0.849
    assert round(alpha(rows, level="ordinal", draws=0).alpha, 3) == 0.815
    assert alpha(rows, draws=0).units == 11  # the last unit has one value only


def test_interval_alpha_matches_the_krippendorff_package_and_the_computation_by_hand():
    rng = np.random.default_rng(7)
    truth = rng.normal(size=40)
    rows = [
        (unit, rater, round(float(truth[unit] + rng.normal(scale=0.6)), 2))
        for unit in range(40)
        for rater in range(3)
        if rng.random() > 0.2  # some values missing
    ]
    assert alpha(rows, draws=0).alpha == pytest.approx(_interval_alpha_by_hand(rows), abs=1e-9)
    matrix = np.full((3, 40), np.nan)
    for unit, rater, value in rows:
        matrix[rater, unit] = value
    package = krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval")
    assert alpha(rows, draws=0).alpha == pytest.approx(package, abs=1e-9)


def test_the_bootstrap_interval_is_seeded_and_narrows_with_more_units():
    rng = np.random.default_rng(3)

    def rows_for(n):
        truth = rng.normal(size=n)
        return [(u, r, float(truth[u] + rng.normal(scale=0.5))) for u in range(n) for r in range(2)]

    few, many = rows_for(20), rows_for(400)
    first, again = alpha(few, draws=300), alpha(few, draws=300)
    assert (first.ci_low, first.ci_high) == (again.ci_low, again.ci_high)  # the same bounds each time
    assert first.ci_low < first.alpha < first.ci_high
    other_seed = alpha(few, draws=300, seed=1)
    assert (other_seed.ci_low, other_seed.ci_high) != (first.ci_low, first.ci_high)
    wide = alpha(many, draws=300)
    assert wide.ci_high - wide.ci_low < first.ci_high - first.ci_low


def test_degenerate_data_give_a_reason_not_an_error():
    assert alpha([("u1", "a", 1.0), ("u1", "b", 2.0)]).reason == reliability.REASON_FEW_UNITS
    flat = [(u, r, 3.0) for u in range(5) for r in range(2)]
    assert alpha(flat).reason == reliability.REASON_NO_VARIANCE and alpha(flat).alpha is None
    with pytest.raises(ValueError):
        alpha(flat, level="nominal")


@pytest.mark.parametrize("offset", [0.5, 1.0, 3.0])
def test_ccc_falls_for_a_uniformly_harsher_rater_where_pcc_does_not(offset):
    a = [0.9, 0.4, 0.7, 0.2, 1.0, 0.55, 0.3, 0.8]
    harsher = [v - offset for v in a]
    result = ccc(a, harsher)
    variance = float(np.var(a))
    assert result.pcc == pytest.approx(1.0)
    assert result.ccc == pytest.approx(2 * variance / (2 * variance + offset**2))  # Lin's closed form
    assert result.mean_difference == pytest.approx(-offset)
    assert result.bias_factor == pytest.approx(result.ccc)
    assert ccc(a, a).ccc == pytest.approx(1.0)


def test_ccc_matches_its_definition_on_random_vectors():
    rng = np.random.default_rng(11)
    a, b = rng.random(23), rng.random(23)
    expected = 2 * np.cov(a, b, bias=True)[0, 1] / (a.var() + b.var() + (a.mean() - b.mean()) ** 2)
    assert ccc(list(a), list(b)).ccc == pytest.approx(expected)
    assert ccc(list(a), list(b)).pcc == pytest.approx(np.corrcoef(a, b)[0, 1])


def test_ccc_degenerate_inputs():
    assert ccc([1.0], [1.0, 2.0]).reason == reliability.REASON_LENGTH_MISMATCH
    assert ccc([], []).reason == reliability.REASON_EMPTY
    same = ccc([0.5] * 4, [0.5] * 4)
    assert same.ccc is None and same.reason == reliability.REASON_NO_VARIANCE
    constant_offset = ccc([0.5] * 4, [0.2] * 4)  # no spread, different level: no agreement at all
    assert constant_offset.ccc == 0.0 and constant_offset.pcc is None and not math.isnan(constant_offset.ccc)


def test_the_level_rule_routes_only_when_on_and_says_why():
    assert not LevelRule().on
    assert level_disagreement(rule=LevelRule(), ccc_value=0.1, total_a=10, total_b=90) == []
    rule = LevelRule(ccc_below=0.6, total_difference_over=15)
    assert rule.on
    assert level_disagreement(rule=rule, ccc_value=0.5, total_a=40, total_b=50) == ["ccc"]
    assert level_disagreement(rule=rule, ccc_value=0.9, total_a=40, total_b=60) == ["total"]
    assert level_disagreement(rule=rule, ccc_value=0.2, total_a=40, total_b=70) == ["ccc", "total"]
    assert level_disagreement(rule=rule, ccc_value=None, total_a=None, total_b=70) == []


def test_ordinal_alpha_in_closed_form_matches_the_krippendorff_package_on_every_draw():
    """The closed form computes each bootstrap draw as one matrix product; the package recomputes
    the draw's data from scratch: the same value on the whole data and on resampled units (with
    missing values, three raters, unequal counts per unit)."""
    rng = np.random.default_rng(11)
    truth = rng.integers(0, 5, size=30)
    matrix = np.clip(truth + rng.integers(-1, 2, size=(3, 30)), 0, 4).astype(float)
    matrix[rng.random(matrix.shape) < 0.2] = np.nan
    kept = matrix[:, np.sum(~np.isnan(matrix), axis=0) >= 2]
    values = np.unique(kept[~np.isnan(kept)])
    counts = np.stack([np.sum(kept == value, axis=0) for value in values], axis=1).astype(float)  # units x v
    whole = reliability._ordinal_alphas(counts, np.ones((1, kept.shape[1])))[0]
    assert whole == pytest.approx(krippendorff.alpha(reliability_data=kept, level_of_measurement="ordinal"))
    picks = rng.integers(0, kept.shape[1], size=(5, kept.shape[1]))
    taken = np.stack([np.bincount(pick, minlength=kept.shape[1]) for pick in picks]).astype(float)
    for pick, value in zip(picks, reliability._ordinal_alphas(counts, taken), strict=True):
        expected = krippendorff.alpha(reliability_data=kept[:, pick], level_of_measurement="ordinal")
        assert value == pytest.approx(expected)
    rows = [(u, r, v) for r, row in enumerate(matrix) for u, v in enumerate(row) if not math.isnan(v)]
    result = alpha(rows, level="ordinal")
    assert result.alpha == pytest.approx(whole)
    assert result.ci_low < result.alpha < result.ci_high
    # the bootstrap weighs units with the same counts together: the same bounds as unit by unit
    read, _pairable = reliability._matrix(rows)  # its units in the order the rows give them
    read = read[:, np.sum(~np.isnan(read), axis=0) >= 2]
    counts = np.stack([np.sum(read == value, axis=0) for value in values], axis=1).astype(float)
    draws = np.random.default_rng(reliability.BOOTSTRAP_SEED).integers(
        0, read.shape[1], size=(reliability.BOOTSTRAP_DRAWS, read.shape[1])
    )
    by_unit = reliability._ordinal_alphas(
        counts, np.stack([np.bincount(d, minlength=read.shape[1]) for d in draws]).astype(float)
    )
    low, high = np.percentile(by_unit[np.isfinite(by_unit)], [2.5, 97.5])
    assert (result.ci_low, result.ci_high) == (pytest.approx(low, abs=1e-12), pytest.approx(high, abs=1e-12))

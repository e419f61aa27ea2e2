"""PCC between two raters' normalized vectors, and which primary rater is closer to the calibrator."""

import numpy as np
from scipy.stats import pearsonr

from calibration.statistics import closer_primary, pcc
from scoring.entries import entries_from_changes
from studies.rubric import load_rubric, normalized_vector, sheet_totals
from tests.factories import reference_changes


def _vector(changes):
    rubric = load_rubric()
    return normalized_vector(sheet_totals(entries_from_changes(changes, rubric), rubric), rubric)


def test_a05_fs10_gives_0_863():
    result = pcc(_vector(reference_changes(3)), _vector(reference_changes(4)))
    assert round(result.r, 3) == 0.863
    assert result.p < 1e-6 and result.reason == ""


def test_constant_or_mismatched_vectors_have_no_pcc():
    assert pcc([0.5] * 23, list(np.linspace(0, 1, 23))).reason == "no variance"
    assert pcc(list(np.linspace(0, 1, 23)), [1.0] * 23).r is None
    assert pcc([0.1, 0.2], [0.1, 0.2, 0.3]).reason == "vectors differ in length"


def test_pcc_is_scipys_pearson_r():
    rng = np.random.default_rng(3)
    a, b = rng.random(23), rng.random(23)
    expected = pearsonr(a, b)
    result = pcc(list(a), list(b))
    assert (result.r, result.p) == (float(expected.statistic), float(expected.pvalue))


def test_closer_primary_by_pcc_then_by_distance():
    calibrator = [0.1, 0.5, 0.9, 0.3]
    assert closer_primary(calibrator, [0.9, 0.1, 0.2, 0.5], [0.2, 0.6, 0.8, 0.3]).slot == "b"
    assert closer_primary(calibrator, [0.2, 0.6, 0.8, 0.3], [0.9, 0.1, 0.2, 0.5]).slot == "a"
    # Rater A constant: its PCC is undefined, so the mean absolute difference decides.
    tie = closer_primary(calibrator, [0.45] * 4, [1.0, 0.0, 0.0, 1.0])
    assert tie.slot == "a" and tie.by == "mean absolute difference" and tie.pcc_a.r is None
    assert closer_primary(calibrator, calibrator, calibrator).by == "tie"


def test_pcc_many_equals_scipy_pair_by_pair():
    """The vectorized path gives scipy's one-pair numbers, float for float, and the
    degenerate pairs their reasons."""
    import random

    from calibration.statistics import memo_clear, pcc_many

    rnd = random.Random(5)
    maxima = [rnd.choice([2, 3, 4, 5, 10, 16, 24]) for _ in range(23)]

    def vector():
        return [rnd.randint(0, m) / m for m in maxima]

    pairs = [(vector(), vector()) for _ in range(300)]
    pairs += [([0.5] * 23, vector()), (vector()[:22], vector()), pairs[0]]
    memo_clear()
    results = pcc_many(pairs)
    for (a, b), result in zip(pairs[:300], results, strict=False):
        expected = pearsonr(a, b)
        assert (result.r, result.p) == (float(expected.statistic), float(expected.pvalue))
    assert results[300].reason == "no variance" and results[301].reason == "vectors differ in length"
    assert results[302] == results[0]
    assert pcc(*pairs[7]) == results[7]  # the single-pair call reads the same memo

"""wilcoxon_test gives exactly scipy's two-sided wilcoxon (default method and zero handling), also
where scipy runs its exact permutation test (ties or zero differences, n <= 13)."""

import math
import random
import warnings

import pytest
from scipy.stats import wilcoxon

from research.results import wilcoxon_test


def scipy_result(a, b):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = wilcoxon(a, b, alternative="two-sided")
    p = float(result.pvalue)
    return float(result.statistic), (None if math.isnan(p) else p)


def _cases():
    rnd = random.Random(2026)
    cases = []
    # scipy's own permutation test takes ~0.2 s at n = 10 and ~2 s at n = 13: few of those
    for n, repeat in [(n, 3) for n in range(1, 11)] + [(12, 1), (13, 1), (14, 1), (20, 1)]:
        for kind in ("ties", "zeros", "distinct", "halves"):
            for _ in range(repeat):
                if kind == "distinct":
                    a = [rnd.uniform(80, 140) for _ in range(n)]
                    b = [rnd.uniform(80, 140) for _ in range(n)]
                elif kind == "halves":  # final scores are means of two sheets
                    a = [rnd.randint(160, 280) / 2 for _ in range(n)]
                    b = [rnd.randint(160, 280) / 2 for _ in range(n)]
                else:
                    a = [float(rnd.randint(100, 110)) for _ in range(n)]
                    b = [x + rnd.choice([-2, -1, 1, 2, 3]) for x in a]
                    if kind == "zeros":
                        b[rnd.randrange(n)] = a[rnd.randrange(n)]
                        b[0] = a[0]
                if any(x != y for x, y in zip(a, b, strict=True)):
                    cases.append((a, b))
    return cases


CASES = _cases()


def test_the_cases_cover_scipys_permutation_branch():
    def permutation(a, b):
        d = [x - y for x, y in zip(a, b, strict=True)]
        nonzero = [abs(x) for x in d if x]
        return len(d) <= 13 and (len(nonzero) < len(d) or len(set(nonzero)) < len(nonzero))

    assert sum(permutation(a, b) for a, b in CASES) >= 40
    assert sum(not permutation(a, b) for a, b in CASES) >= 40


@pytest.mark.parametrize("a,b", CASES)
def test_equals_scipy(a, b):
    statistic, p, note = wilcoxon_test(a, b)
    assert note == ""
    assert (statistic, p) == scipy_result(a, b)  # the same floats


def test_one_zero_difference_among_ten_scenarios():
    # as gemini-2.5-pro in Table 4 (FS9 116 vs 116): scipy runs its permutation test
    a = [101.0, 120.5, 99.0, 130.0, 118.0, 125.5, 110.0, 104.0, 116.0, 121.0]
    b = [100.0, 118.5, 97.5, 131.0, 117.0, 120.0, 108.0, 104.5, 116.0, 119.0]
    assert wilcoxon_test(a, b)[:2] == scipy_result(a, b)

"""Bradley-Terry scores (research/bradley_terry.py): the penalised fit against statsmodels' likelihood
and a closed form, the order, ties, a system that never loses, the bootstrap intervals, the inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq, minimize
from scipy.special import expit

from research.bradley_terry import (
    RIDGE,
    BtScore,
    Comparison,
    bradley_terry_scores,
    comparison_groups,
    pair_outcome,
)

POINTS_PER_NAT = 400 / math.log(10)  # 400 * log10(e)


def battles(left: str, right: str, *, wins: int = 0, losses: int = 0, ties: int = 0) -> list[Comparison]:
    """``left``'s wins, losses and ties against ``right``; the losses written with ``right`` on the left."""
    return (
        [Comparison(left=left, right=right, outcome=1.0)] * wins
        + [Comparison(left=right, right=left, outcome=1.0)] * losses
        + [Comparison(left=left, right=right, outcome=0.5)] * ties
    )


def by_system(scores: list[BtScore]) -> dict[str, BtScore]:
    return {s.system: s for s in scores}


SMALL = (
    battles("A", "B", wins=12, losses=5, ties=3)
    + battles("B", "C", wins=9, losses=7, ties=4)
    + battles("A", "C", wins=15, losses=2, ties=3)
    + battles("C", "D", wins=8, losses=8, ties=2)
    + battles("B", "D", wins=10, losses=4, ties=1)
)


def design(comparisons: list[Comparison]) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Chatbot Arena's ±1 rows: +1 for the left system, -1 for the right one; a tie is a win row and a
    loss row of weight 0.5 each."""
    names = sorted({c.left for c in comparisons} | {c.right for c in comparisons})
    column = {name: i for i, name in enumerate(names)}
    rows, ys, weights = [], [], []
    for c in comparisons:
        row = np.zeros(len(names))
        row[column[c.left]], row[column[c.right]] = 1.0, -1.0
        for y, weight in ((1.0, c.outcome), (0.0, 1.0 - c.outcome)):
            if weight:
                rows.append(row)
                ys.append(y)
                weights.append(weight)
    return names, np.array(rows), np.array(ys), np.array(weights)


def to_points(beta: np.ndarray) -> np.ndarray:
    return 1000 + POINTS_PER_NAT * (beta - beta.mean())


def test_the_penalised_fit_is_statsmodels_likelihood_with_the_ridge():
    names, x, y, weights = design(SMALL)
    model = sm.GLM(y, x, family=sm.families.Binomial(), freq_weights=weights)
    result = minimize(
        lambda b: (-model.loglike(b) + RIDGE / 2 * b @ b, -model.score(b) + RIDGE * b),
        np.zeros(len(names)),
        jac=True,
        method="BFGS",
        options={"gtol": 1e-10},
    )
    expected = dict(zip(names, to_points(result.x), strict=True))
    got = by_system(bradley_terry_scores(comparisons=SMALL, rounds=10))
    for name in names:
        assert got[name].score == pytest.approx(expected[name], abs=1e-4)


def test_the_ridge_moves_the_scores_little_from_the_plain_mle():
    names, x, y, weights = design(SMALL)
    # the plain MLE, identified by fixing the first system at 0 (its column dropped)
    fit = sm.GLM(y, x[:, 1:], family=sm.families.Binomial(), freq_weights=weights).fit(tol=1e-12)
    plain = dict(zip(names, to_points(np.r_[0.0, fit.params]), strict=True))
    got = by_system(bradley_terry_scores(comparisons=SMALL, rounds=10))
    assert {name: round(got[name].score - plain[name], 0) for name in names} == dict.fromkeys(names, 0)
    assert max(abs(got[name].score - plain[name]) for name in names) < 0.5


def test_two_systems_match_the_closed_form():
    wins, losses = 30, 10
    # with the ridge, beta_A = -beta_B = d / 2 solves wins * sigma(-d) - losses * sigma(d) = RIDGE * d / 2
    d = brentq(lambda d: wins * expit(-d) - losses * expit(d) - RIDGE * d / 2, 0.0, 10.0, xtol=1e-14)
    got = by_system(bradley_terry_scores(comparisons=battles("A", "B", wins=wins, losses=losses), rounds=10))
    assert got["A"].score == pytest.approx(1000 + POINTS_PER_NAT * d / 2, abs=1e-4)
    assert got["B"].score == pytest.approx(1000 - POINTS_PER_NAT * d / 2, abs=1e-4)
    # and the plain MLE's log(w / l) up to the ridge's small pull
    assert got["A"].score - got["B"].score == pytest.approx(400 * math.log10(wins / losses), abs=0.5)


def test_a_strongly_ordered_set_is_ranked_in_its_order():
    order = ["S1", "S2", "S3", "S4", "S5"]
    comparisons = [
        c
        for i, better in enumerate(order)
        for worse in order[i + 1 :]
        for c in battles(better, worse, wins=9, losses=1)
    ]
    scores = bradley_terry_scores(comparisons=comparisons, rounds=50)
    assert [s.system for s in scores] == order
    assert all(a.score > b.score + 50 for a, b in zip(scores, scores[1:], strict=False))


def test_ties_give_equal_scores_and_count_half_each():
    scores = by_system(
        bradley_terry_scores(
            comparisons=battles("A", "B", ties=6) + battles("B", "C", ties=4) + battles("A", "C", ties=2),
            rounds=20,
        )
    )
    for s in scores.values():
        assert s.score == pytest.approx(1000, abs=1e-6)
    assert (scores["A"].wins, scores["A"].losses, scores["A"].ties, scores["A"].comparisons) == (4, 4, 8, 8)
    assert (scores["C"].wins, scores["C"].losses, scores["C"].ties, scores["C"].comparisons) == (3, 3, 6, 6)

    # A and B tie each other and do equally well against C: equal, above C
    scores = by_system(
        bradley_terry_scores(
            comparisons=battles("A", "B", ties=5)
            + battles("A", "C", wins=7, losses=3)
            + battles("B", "C", wins=7, losses=3),
            rounds=20,
        )
    )
    assert scores["A"].score == pytest.approx(scores["B"].score, abs=1e-6)
    assert scores["A"].score > scores["C"].score + 50
    assert (scores["A"].wins, scores["A"].losses, scores["A"].ties) == (9.5, 5.5, 5)


def test_a_system_that_never_loses_gets_a_finite_score_at_the_top():
    comparisons = (
        battles("A", "B", wins=10) + battles("A", "C", wins=10) + battles("B", "C", wins=6, losses=4)
    )
    scores = bradley_terry_scores(comparisons=comparisons, rounds=200)
    top = scores[0]
    assert top.system == "A"
    assert (top.wins, top.losses) == (20, 0)
    for s in scores:
        assert math.isfinite(s.score) and math.isfinite(s.low) and math.isfinite(s.high)
    assert top.score > scores[1].score + 300
    assert top.score < 3000  # held by the ridge, not merely short of overflow


def test_intervals_hold_the_estimate_narrow_with_more_data_and_follow_the_seed():
    base = (
        battles("A", "B", wins=14, losses=6, ties=2)
        + battles("B", "C", wins=11, losses=9, ties=3)
        + battles("A", "C", wins=16, losses=4)
    )
    first = bradley_terry_scores(comparisons=base, rounds=400, seed=3)
    small = by_system(first)
    large = by_system(bradley_terry_scores(comparisons=base * 4, rounds=400, seed=3))
    for name in "ABC":
        for s in (small[name], large[name]):
            assert s.low < s.score < s.high
        assert large[name].high - large[name].low < 0.75 * (small[name].high - small[name].low)
    # the point estimate depends on the proportions, up to the ridge's pull (smaller with more data)
    assert large["A"].score == pytest.approx(small["A"].score, abs=0.5)

    assert bradley_terry_scores(comparisons=base, rounds=400, seed=3) == first
    other = by_system(bradley_terry_scores(comparisons=base, rounds=400, seed=4))
    assert other["A"].score == small["A"].score
    assert (other["A"].low, other["A"].high) != (small["A"].low, small["A"].high)


def test_the_level_sets_the_percentiles():
    comparisons = battles("A", "B", wins=14, losses=6, ties=2) + battles("B", "C", wins=11, losses=9)
    wide = by_system(bradley_terry_scores(comparisons=comparisons, rounds=300, level=0.95))
    narrow = by_system(bradley_terry_scores(comparisons=comparisons, rounds=300, level=0.5))
    for name in "ABC":
        assert wide[name].low < narrow[name].low < narrow[name].high < wide[name].high


def test_sorted_by_score_and_small_inputs():
    scores = bradley_terry_scores(comparisons=SMALL, rounds=10)
    assert [s.score for s in scores] == sorted((s.score for s in scores), reverse=True)
    assert [s.system for s in scores] == ["A", "B", "C", "D"]

    assert bradley_terry_scores(comparisons=[]) == []
    one = by_system(
        bradley_terry_scores(comparisons=[Comparison(left="X", right="Y", outcome=1.0)], rounds=5)
    )
    assert one["X"].score > 1000 > one["Y"].score
    assert one["X"].score - 1000 == pytest.approx(1000 - one["Y"].score)
    assert one["X"].low == one["X"].score == one["X"].high  # every resample is that comparison
    assert (one["X"].wins, one["X"].losses, one["X"].comparisons) == (1, 0, 1)


@pytest.mark.parametrize(
    ("comparisons", "kwargs", "message"),
    [
        ([Comparison(left="A", right="B", outcome=0.7)], {}, "outcome must be 0, 0.5 or 1"),
        ([Comparison(left="A", right="B", outcome=2.0)], {}, "outcome must be 0, 0.5 or 1"),
        ([Comparison(left="A", right="B", outcome=math.nan)], {}, "outcome must be 0, 0.5 or 1"),
        ([Comparison(left="A", right="A", outcome=1.0)], {}, "compared with itself"),
        ([Comparison(left="", right="B", outcome=1.0)], {}, "non-empty strings"),
        ([Comparison(left="A", right="B", outcome=1.0)], {"rounds": 0}, "rounds must be"),
        ([Comparison(left="A", right="B", outcome=1.0)], {"level": 1.0}, "level must lie"),
        ([Comparison(left="A", right="B", outcome=1.0)], {"level": 0.0}, "level must lie"),
    ],
)
def test_bad_inputs_raise(comparisons, kwargs, message):
    with pytest.raises(ValueError, match=message):
        bradley_terry_scores(comparisons=comparisons, **kwargs)


def test_pair_outcome_maps_the_scale_to_the_left_system():
    assert pair_outcome(preference=1, low=1, high=5) == 1.0
    assert pair_outcome(preference=2, low=1, high=5) == 1.0
    assert pair_outcome(preference=3, low=1, high=5) == 0.5
    assert pair_outcome(preference=4, low=1, high=5) == 0.0
    assert pair_outcome(preference=5, low=1, high=5) == 0.0
    # an even number of points has its midpoint between two of them; a mean may land on it
    assert pair_outcome(preference=2.5, low=1, high=4) == 0.5
    assert pair_outcome(preference=2.4, low=1, high=4) == 1.0
    assert pair_outcome(preference=2.6, low=1, high=4) == 0.0
    for bad in ({"preference": 6, "low": 1, "high": 5}, {"preference": 0, "low": 1, "high": 5}):
        with pytest.raises(ValueError, match="outside the scale"):
            pair_outcome(**bad)
    with pytest.raises(ValueError, match="outside the scale"):
        pair_outcome(preference=math.nan, low=1, high=5)
    with pytest.raises(ValueError, match="low < high"):
        pair_outcome(preference=3, low=5, high=1)


comparison = st.builds(
    lambda pair, outcome: Comparison(left=pair[0], right=pair[1], outcome=outcome),
    st.sampled_from([("A", "B"), ("B", "A"), ("A", "C"), ("C", "B"), ("D", "A"), ("C", "D")]),
    st.sampled_from([0.0, 0.5, 1.0]),
)


@settings(max_examples=30, deadline=None)
@given(st.lists(comparison, min_size=1, max_size=25), st.integers(0, 2**16))
def test_swapping_sides_and_flipping_outcomes_changes_nothing(comparisons, seed):
    swapped = [Comparison(left=c.right, right=c.left, outcome=1.0 - c.outcome) for c in comparisons]
    a = by_system(bradley_terry_scores(comparisons=comparisons, rounds=20, seed=seed))
    b = by_system(bradley_terry_scores(comparisons=swapped, rounds=20, seed=seed))
    assert a.keys() == b.keys()
    for name in a:
        assert b[name].score == pytest.approx(a[name].score, abs=1e-3)
        assert b[name].low == pytest.approx(a[name].low, abs=1e-3)
        assert b[name].high == pytest.approx(a[name].high, abs=1e-3)
        assert (b[name].wins, b[name].losses, b[name].ties) == (a[name].wins, a[name].losses, a[name].ties)


def test_systems_no_chain_of_comparisons_links_are_in_groups_of_their_own():
    linked = by_system(bradley_terry_scores(comparisons=SMALL, rounds=5))
    assert {s.group for s in linked.values()} == {1}
    # two islands: A-B and C-D-E; each centres on 1000 by itself, so across them nothing compares
    islands = (
        battles("A", "B", wins=6, losses=2) + battles("C", "D", wins=3, losses=3) + battles("E", "D", wins=4)
    )
    apart = by_system(bradley_terry_scores(comparisons=islands, rounds=5))
    assert {name: s.group for name, s in apart.items()} == {"A": 1, "B": 1, "C": 2, "D": 2, "E": 2}
    assert comparison_groups(islands) == {"A": 1, "B": 1, "C": 2, "D": 2, "E": 2}
    for group in ({"A", "B"}, {"C", "D", "E"}):
        assert sum(apart[n].score - 1000 for n in group) == pytest.approx(0, abs=1e-6)
    # one comparison across the islands joins them
    joined = comparison_groups([*islands, Comparison(left="B", right="E", outcome=0.5)])
    assert set(joined.values()) == {1}
    assert comparison_groups([]) == {}


def reachable(comparisons: list[Comparison], start: str) -> set[str]:
    """The systems a chain of comparisons leads to from ``start`` (a plain search: the test's oracle)."""
    seen, todo = {start}, [start]
    while todo:
        here = todo.pop()
        for c in comparisons:
            for a, b in ((c.left, c.right), (c.right, c.left)):
                if a == here and b not in seen:
                    seen.add(b)
                    todo.append(b)
    return seen


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from("ABCDEFG"), st.sampled_from("ABCDEFG")).filter(lambda p: p[0] != p[1]),
        max_size=8,
    )
)
def test_two_systems_share_a_group_exactly_when_a_chain_links_them(pairs):
    comparisons = [Comparison(left=a, right=b, outcome=1.0) for a, b in pairs]
    groups = comparison_groups(comparisons)
    for name in groups:
        linked = reachable(comparisons, name)
        assert {other for other in groups if groups[other] == groups[name]} == linked
    # numbered 1, 2, ... in the order of each group's first system by name
    firsts = [groups[name] for name in sorted(groups)]
    assert [g for i, g in enumerate(firsts) if g not in firsts[:i]] == list(range(1, len(set(firsts)) + 1))

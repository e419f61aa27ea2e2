"""Prediction-powered estimates (issue 39): checked against a direct computation, and by
simulation on data with a known true mean: the interval covers the truth at the nominal rate,
the judge's own mean (biased) does not, and a judge that tracks the humans is worth more human
scores than were made."""

from __future__ import annotations

import numpy as np
import pytest

from judging.ppi import Z95, ppi_mean


def test_the_estimate_is_the_papers_formula():
    human = [3.0, 5.0, 4.0, 6.0]
    judge_on_human = [3.5, 5.5, 4.0, 7.0]
    judge_only = [4.0, 6.0, 5.0, 5.5, 6.5]
    y, f, g = np.array(human), np.array(judge_on_human), np.array(judge_only)
    n, big_n = len(y), len(g)
    weight = np.cov(y, f)[0, 1] / ((1 + n / big_n) * np.concatenate([f, g]).var(ddof=1))
    weight = min(max(weight, 0), 1)
    mean = y.mean() + weight * (g.mean() - f.mean())
    variance = (y - weight * f).var(ddof=1) / n + weight**2 * g.var(ddof=1) / big_n
    got = ppi_mean(human=human, judge_on_human=judge_on_human, judge_only=judge_only)
    assert got.weight == pytest.approx(weight) and got.mean == pytest.approx(mean)
    assert (got.low, got.high) == pytest.approx((mean - Z95 * variance**0.5, mean + Z95 * variance**0.5))
    assert got.effective_n == pytest.approx(n * (y.var(ddof=1) / n) / variance)
    assert got.human_mean == pytest.approx(y.mean()) and got.judge_mean == pytest.approx(np.r_[f, g].mean())
    # the original PPI: the judge's correction counts fully
    plain = ppi_mean(human=human, judge_on_human=judge_on_human, judge_only=judge_only, tuned=False)
    assert plain.weight == 1 and plain.mean == pytest.approx(y.mean() + g.mean() - f.mean())


def _draw(rng, *, n, big_n, bias, noise):
    truth = rng.normal(60, 12, n + big_n)  # the humans' score of every response
    judge = truth + bias + rng.normal(0, noise, n + big_n)  # a judge with a known bias
    return truth, judge


def test_the_interval_covers_the_truth_at_the_nominal_rate_and_the_judges_mean_does_not():
    rng = np.random.default_rng(39)
    n, big_n, draws, true_mean = 60, 600, 600, 60.0
    covered = judge_covered = 0
    widths, human_widths = [], []
    for _ in range(draws):
        truth, judge = _draw(rng, n=n, big_n=big_n, bias=6.0, noise=4.0)
        est = ppi_mean(human=truth[:n], judge_on_human=judge[:n], judge_only=judge[n:])
        covered += est.low <= true_mean <= est.high
        half = Z95 * judge.std(ddof=1) / len(judge) ** 0.5
        judge_covered += abs(est.judge_mean - true_mean) <= half
        widths.append(est.high - est.low)
        human_widths.append(est.human_high - est.human_low)
    assert 0.93 <= covered / draws <= 0.97  # nominal 95%, 600 draws: +-2 standard errors
    assert judge_covered / draws < 0.05  # the judge's own mean misses: it is 6 points high
    assert np.mean(widths) < 0.6 * np.mean(human_widths)  # the judge buys a narrower interval


def test_a_judge_that_does_not_track_the_humans_counts_for_nothing():
    rng = np.random.default_rng(7)
    truth = rng.normal(60, 12, 400)
    unrelated = rng.normal(50, 12, 400)
    est = ppi_mean(human=truth[:100], judge_on_human=unrelated[:100], judge_only=unrelated[100:])
    assert est.weight < 0.15 and est.effective_n == pytest.approx(100, rel=0.1)
    assert est.mean == pytest.approx(est.human_mean, abs=1.5)


def test_too_few_scores_leave_it_undefined():
    assert ppi_mean(human=[5.0], judge_on_human=[5.0], judge_only=[1.0, 2.0]).mean is None
    only_humans = ppi_mean(human=[4.0, 6.0], judge_on_human=[4.0, 6.0], judge_only=[])
    assert only_humans.mean is None and only_humans.human_mean == 5.0
    with pytest.raises(ValueError):
        ppi_mean(human=[1.0, 2.0], judge_on_human=[1.0], judge_only=[3.0])

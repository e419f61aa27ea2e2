"""The judge and the humans together per cell and for a paired difference (issue 39): grouping
checked against ``ppi_mean`` on the same numbers, and the paired difference by simulation with a
known true difference and a judge biased towards one condition."""

from __future__ import annotations

import numpy as np
import pytest

from judging.estimates import (
    JudgedResponse,
    calibration_by_step,
    cell_estimates,
    overall_self_preference,
    paired_difference_estimates,
)
from judging.ppi import ppi_mean


def _response(i, *, scenario, condition, judge, human, model="m", own=False):
    return JudgedResponse(
        response_id=i, scenario=scenario, model_number="01", model=model, condition=condition, own_family=own,
        judge=judge, human=human, judge_steps={1: judge / 10}, human_steps={1: human / 10} if human is not None else None,
    )  # fmt: skip


def _population(rng, scenarios, *, labelled, bias_a):
    """One model under A and B on each scenario: A is truly 5 points better; the judge adds
    ``bias_a`` to A only. The humans scored the first ``labelled`` scenarios (a random sample,
    as the scenarios are drawn at random)."""
    true_a = rng.normal(60, 10, scenarios)
    true_b = true_a - 5 + rng.normal(0, 4, scenarios)
    judge_a = true_a + bias_a + rng.normal(0, 3, scenarios)
    judge_b = true_b + rng.normal(0, 3, scenarios)
    responses = []
    for s in range(scenarios):
        seen = s < labelled
        responses.append(
            _response(
                2 * s, scenario=f"S{s}", condition="A", judge=judge_a[s], human=true_a[s] if seen else None
            )
        )
        responses.append(
            _response(
                2 * s + 1,
                scenario=f"S{s}",
                condition="B",
                judge=judge_b[s],
                human=true_b[s] if seen else None,
            )
        )
    return responses, float(np.mean(true_a - true_b))


def test_the_paired_difference_covers_the_true_difference_and_the_judges_does_not():
    rng = np.random.default_rng(39)
    draws, covered, judge_near = 400, 0, 0
    for _ in range(draws):
        responses, truth = _population(rng, 300, labelled=40, bias_a=6.0)
        (estimate,) = paired_difference_estimates(responses, pair=("A", "B"))
        e = estimate.estimate
        covered += e.low <= truth <= e.high
        judge_near += abs(e.judge_mean - truth) < 2
    assert 0.92 <= covered / draws <= 0.98  # nominal 95%, 400 draws
    assert judge_near == 0  # the judge's own difference is 6 points off


def test_cells_and_pairs_group_the_responses_as_documented():
    responses = [
        _response(1, scenario="S1", condition="A", judge=70, human=66),
        _response(2, scenario="S2", condition="A", judge=60, human=58),
        _response(3, scenario="S3", condition="A", judge=64, human=None),
        _response(4, scenario="S1", condition="B", judge=61, human=62),
        _response(5, scenario="S2", condition="B", judge=55, human=None),  # S2: judge-only pair
        _response(6, scenario="S3", condition="B", judge=50, human=51),
        _response(7, scenario="S4", condition="B", judge=52, human=50),  # no A on S4: left out of pairs
    ]
    a_cell, b_cell = cell_estimates(responses)
    assert a_cell.estimate == ppi_mean(human=[66, 58], judge_on_human=[70, 60], judge_only=[64])
    assert b_cell.estimate == ppi_mean(human=[62, 51, 50], judge_on_human=[61, 50, 52], judge_only=[55])
    (pair,) = paired_difference_estimates(responses, pair=("A", "B"))
    assert pair.estimate.n_human == 1 and pair.estimate.n_judge_only == 2
    assert pair.estimate.judge_mean == pytest.approx(np.mean([70 - 61, 60 - 55, 64 - 50]))


def test_self_preference_and_calibration_use_the_human_scored_responses_only():
    responses = [
        _response(
            i,
            scenario=f"S{i}",
            condition="A",
            judge=60 + i + (8 if i % 2 else 0),
            human=60 + i,
            own=bool(i % 2),
        )
        for i in range(12)
    ] + [_response(99, scenario="S99", condition="A", judge=90, human=None, own=True)]
    test = overall_self_preference(responses)
    assert (test.n_own, test.n_others) == (6, 6) and test.difference == pytest.approx(8)
    assert test.p_value < 0.01
    step, overall = calibration_by_step(responses, steps=[1])
    assert step.step == 1 and overall.step is None
    assert sum(p.n for p in overall.points) == 12  # the judge-only response has no human level

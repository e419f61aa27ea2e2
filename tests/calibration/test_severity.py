"""Rater severity against statsmodels' OLS of the full model (every response and dimension as a
dummy, raters in sum-to-zero coding); a uniformly harsher rater and a rater biased on one
dimension, built into the data, are found (issue 38)."""

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf

from calibration.severity import REASON_FEW_RATERS, rater_severity

RATERS = ["ann", "bo", "cy", "di", "ed"]
HARSH = {"cy": -0.12}  # cy gives 0.12 less on every dimension
BIASED = ("di", "d3", +0.25)  # di gives 0.25 more on dimension d3


def _rows(seed=4, responses=80, dimensions=6):
    rng = np.random.default_rng(seed)
    rows = []
    for p in range(responses):
        level = rng.normal(0.6, 0.15)
        for rater in rng.choice(RATERS, 2, replace=False):
            for d in range(dimensions):
                value = level + 0.05 * d + HARSH.get(rater, 0.0) + rng.normal(scale=0.05)
                if (rater, f"d{d}") == BIASED[:2]:
                    value += BIASED[2]
                rows.append((f"R{p}", str(rater), f"d{d}", float(value)))
    return rows


def test_effects_and_standard_errors_equal_the_full_ols_model():
    rows = _rows()
    frame = pd.DataFrame(rows, columns=["response", "rater", "dimension", "score"])
    ols = smf.ols("score ~ C(response) + C(dimension) + C(rater, Sum)", frame).fit()
    severity = rater_severity(rows)
    by_rater = {effect.rater: effect for effect in severity.raters}
    for rater in sorted(RATERS)[:-1]:
        name = f"C(rater, Sum)[S.{rater}]"
        assert name in ols.params.index, list(ols.params.index)[-6:]
        assert by_rater[rater].effect == pytest.approx(ols.params[name], abs=1e-9), rater
        assert by_rater[rater].se == pytest.approx(ols.bse[name], rel=1e-6), rater
    assert sum(e.effect for e in severity.raters) == pytest.approx(0.0, abs=1e-12)


def test_a_uniformly_harsher_rater_is_found_and_fair_scores_take_it_out():
    severity = rater_severity(_rows())
    effects = {e.rater: e.effect for e in severity.raters}
    assert min(effects, key=effects.get) == "cy"
    assert effects["cy"] - np.mean([v for k, v in effects.items() if k != "cy"]) == pytest.approx(
        -0.12, abs=0.03
    )
    # a response cy scored: its fair score is above its raw mean by about cy's severity / 2
    rows = _rows()
    raw = pd.DataFrame(rows, columns=["response", "rater", "dimension", "score"])
    scored_by_cy = raw[raw["rater"] == "cy"]["response"].unique()
    lifts = [severity.fair_scores[p] - raw[raw["response"] == p]["score"].mean() for p in scored_by_cy]
    assert np.mean(lifts) > 0.03


def test_the_rater_biased_on_one_dimension_stands_out_there():
    severity = rater_severity(_rows())
    largest = max(severity.biases, key=lambda b: abs(b.z))
    assert (largest.rater, largest.dimension) == ("di", "d3") and largest.flagged
    assert largest.bias > 0.15  # most of the +0.25 (the rest went into di's and d3's own effects)
    others = [b for b in severity.biases if (b.rater, b.dimension) != ("di", "d3")]
    assert max(abs(b.bias) for b in others) < 0.08


def test_one_rater_alone_has_no_severity():
    rows = [(f"R{p}", "ann", "d0", 0.5) for p in range(5)]
    assert rater_severity(rows).reason == REASON_FEW_RATERS


def test_the_sheets_fit_gives_what_the_fit_on_every_score_gives(monkeypatch):
    """Complete sheets (every dimension once) are fitted on the sheets' means; forced onto the fit
    on every score, the effects, standard errors, fair scores and biases are the same."""
    import calibration.severity as severity_module

    rows = _rows(seed=9, responses=60, dimensions=5)
    fast = rater_severity(rows)
    monkeypatch.setattr(severity_module, "_balanced", lambda frame: False)
    full = rater_severity(rows)
    for a, b in zip(fast.raters, full.raters, strict=True):
        assert a.rater == b.rater and a.scores == b.scores
        assert a.effect == pytest.approx(b.effect, abs=1e-10) and a.se == pytest.approx(b.se, rel=1e-8)
    assert fast.fair_scores.keys() == full.fair_scores.keys()
    for key, value in fast.fair_scores.items():
        assert value == pytest.approx(full.fair_scores[key], abs=1e-10)
    assert [(x.rater, x.dimension, x.scores) for x in fast.biases] == [
        (x.rater, x.dimension, x.scores) for x in full.biases
    ]
    for a, b in zip(fast.biases, full.biases, strict=True):
        assert a.bias == pytest.approx(b.bias, abs=1e-10) and a.z == pytest.approx(b.z, rel=1e-7)


def test_sheets_missing_a_score_are_fitted_on_every_score_as_the_full_ols_model():
    rows = [row for i, row in enumerate(_rows(seed=5)) if i % 17]  # some sheets lack a dimension
    frame = pd.DataFrame(rows, columns=["response", "rater", "dimension", "score"])
    ols = smf.ols("score ~ C(response) + C(dimension) + C(rater, Sum)", frame).fit()
    by_rater = {effect.rater: effect for effect in rater_severity(rows).raters}
    for rater in sorted(RATERS)[:-1]:
        name = f"C(rater, Sum)[S.{rater}]"
        assert by_rater[rater].effect == pytest.approx(ols.params[name], abs=1e-8), rater
        assert by_rater[rater].se == pytest.approx(ols.bse[name], rel=1e-6), rater

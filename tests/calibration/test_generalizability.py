"""The G-study against the ANOVA estimates of a balanced design (REML equals them there), written
out here from the expected mean squares; the D-study against its formulas (issue 38)."""

import numpy as np
import pytest

from calibration.generalizability import GStudy, d_study, d_study_plan, g_study

SYSTEMS, SCENARIOS, RATERS = 6, 5, 4


def _balanced(seed=5, sd=None):
    sd = sd or {"system": 0.30, "scenario": 0.20, "response": 0.15, "rater": 0.10, "residual": 0.12}
    rng = np.random.default_rng(seed)
    system = rng.normal(scale=sd["system"], size=SYSTEMS)
    scenario = rng.normal(scale=sd["scenario"], size=SCENARIOS)
    response = rng.normal(scale=sd["response"], size=(SYSTEMS, SCENARIOS))
    rater = rng.normal(scale=sd["rater"], size=RATERS)
    return [
        (f"sys{c}", f"FS{s}", f"R{c}-{s}", f"rater{r}", 0.6 + system[c] + scenario[s] + response[c, s]
         + rater[r] + rng.normal(scale=sd["residual"]))
        for c in range(SYSTEMS) for s in range(SCENARIOS) for r in range(RATERS)
    ]  # fmt: skip


def _anova(rows):
    """Variance components from the mean squares of y = mu + c + s + cs + r + e, balanced."""
    y = np.zeros((SYSTEMS, SCENARIOS, RATERS))
    for system, scenario, _response, rater, score in rows:
        y[int(system[3:]), int(scenario[2:]), int(rater[5:])] = score
    mean = y.mean()
    c_means, s_means, r_means = y.mean(axis=(1, 2)), y.mean(axis=(0, 2)), y.mean(axis=(0, 1))
    cs_means = y.mean(axis=2)
    ss_c = SCENARIOS * RATERS * ((c_means - mean) ** 2).sum()
    ss_s = SYSTEMS * RATERS * ((s_means - mean) ** 2).sum()
    ss_cs = RATERS * ((cs_means - c_means[:, None] - s_means[None, :] + mean) ** 2).sum()
    ss_r = SYSTEMS * SCENARIOS * ((r_means - mean) ** 2).sum()
    ss_e = ((y - mean) ** 2).sum() - ss_c - ss_s - ss_cs - ss_r
    ms_c, ms_s = ss_c / (SYSTEMS - 1), ss_s / (SCENARIOS - 1)
    ms_cs = ss_cs / ((SYSTEMS - 1) * (SCENARIOS - 1))
    ms_r = ss_r / (RATERS - 1)
    ms_e = ss_e / (
        SYSTEMS * SCENARIOS * RATERS
        - 1
        - (SYSTEMS - 1)
        - (SCENARIOS - 1)
        - (SYSTEMS - 1) * (SCENARIOS - 1)
        - (RATERS - 1)
    )
    return {
        "residual": ms_e,
        "rater": (ms_r - ms_e) / (SYSTEMS * SCENARIOS),
        "response": (ms_cs - ms_e) / RATERS,
        "scenario": (ms_s - ms_cs) / (SYSTEMS * RATERS),
        "system": (ms_c - ms_cs) / (SCENARIOS * RATERS),
    }  # fmt: skip


def test_reml_components_equal_the_anova_estimates_of_a_balanced_design():
    rows = _balanced()
    expected = _anova(rows)
    assert all(value > 0 for value in expected.values())  # REML equals ANOVA when none is cut at 0
    g = g_study(rows)
    assert g.reason == "" and g.scores == len(rows)
    for facet, value in expected.items():
        assert g.components[facet] == pytest.approx(value, rel=0.02, abs=1e-5), facet
    assert sum(g.share(f) for f in g.components) == pytest.approx(1.0)


def test_the_d_study_follows_its_formulas_and_more_of_a_facet_helps():
    g = GStudy(
        components={"system": 0.09, "scenario": 0.04, "response": 0.02, "rater": 0.01, "residual": 0.03}
    )
    d = d_study(g, scenarios=5, raters=2)
    relative = 0.02 / 5 + (0.01 + 0.03) / 10
    assert d.generalizability == pytest.approx(0.09 / (0.09 + relative))
    assert d.dependability == pytest.approx(0.09 / (0.09 + 0.04 / 5 + relative))
    plan = d_study_plan(g)
    by_design = {(p.raters, p.scenarios): p for p in plan}
    assert by_design[(2, 10)].generalizability > by_design[(2, 5)].generalizability
    assert by_design[(4, 5)].dependability > by_design[(1, 5)].dependability
    assert all(p.dependability <= p.generalizability for p in plan)  # absolute error is never smaller


def test_a_single_scenario_leaves_its_facet_out_and_tiny_data_say_why():
    rows = [r for r in _balanced() if r[1] == "FS0"]
    g = g_study(rows)
    assert g.reason == "" and g.components["scenario"] == 0.0 and g.components["system"] > 0
    # one scenario: a response is its system's, and the system carries the response's variance
    assert g.components["response"] == 0.0
    assert g_study(rows[:4]).reason == "fewer than 2 raters on 3 responses"
    assert d_study(GStudy(), scenarios=3, raters=2).generalizability is None


def test_reml_matches_statsmodels_mixedlm_on_an_unbalanced_design_with_rater_pairs():
    """As the study scores: each response by a pair drawn from a pool of raters (crossed, not
    balanced); statsmodels' MixedLM, one group with crossed variance components, is the reference."""
    import pandas as pd
    import statsmodels.formula.api as smf

    rng = np.random.default_rng(21)
    system, scenario, rater = (
        rng.normal(scale=0.3, size=8),
        rng.normal(scale=0.2, size=6),
        rng.normal(scale=0.15, size=7),
    )
    rows = []
    for c in range(8):
        for s in range(6):
            response = rng.normal(scale=0.15)
            for r in rng.choice(7, 2, replace=False):
                value = 0.5 + system[c] + scenario[s] + response + rater[r] + rng.normal(scale=0.1)
                rows.append((c, s, f"{c}-{s}", int(r), float(value)))
    frame = pd.DataFrame(rows, columns=["system", "scenario", "response", "rater", "score"])
    frame["all"] = 0
    vc = {facet: f"0 + C({facet})" for facet in ("system", "scenario", "response", "rater")}
    reference = smf.mixedlm("score ~ 1", frame, groups="all", re_formula="0", vc_formula=vc).fit(reml=True)
    model_names = smf.mixedlm("score ~ 1", frame, groups="all", re_formula="0", vc_formula=vc).exog_vc.names
    expected = dict(zip(model_names, reference.vcomp, strict=True)) | {"residual": reference.scale}
    g = g_study(rows)
    for facet, value in expected.items():
        assert g.components[facet] == pytest.approx(value, rel=0.03, abs=2e-4), facet

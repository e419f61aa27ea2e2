"""Figures: y-axes to the rubric maximum their titles state, Figure 3's per-step Wilcoxon marks,
Figures 6/7 (diversity against flexibility per condition) and "No data yet" when empty."""

import pytest

from research.figures import figure_build
from research.records import ResponseRecord, ScoreRecord
from research.results import results_compute
from research.significance import step_tests
from studies.rubric import load_rubric

RUBRIC = load_rubric()


def _records(n_scenarios=10):
    """Two models, conditions A and B; model 01 is better under A in every step and scenario."""
    records = []
    for m in ("01", "02"):
        for cond in "AB":
            for sc in range(1, n_scenarios + 1):
                bonus = (3 + sc % 4) if (m == "01" and cond == "A") else 0
                steps = {
                    s.number: float(s.max // 2 + min(bonus, s.max // 2) - (sc % 3)) for s in RUBRIC.steps
                }
                dims = {d.key: float(d.max // 2) for d in RUBRIC.dimensions}
                dims["s1.flexibility"] = dims["s3.flexibility"] = float(2 + sc % 5)
                records.append(
                    ScoreRecord(
                        len(records) + 1,
                        f"{cond}{m}_FS{sc}",
                        f"FS{sc}",
                        m,
                        f"model-{m}",
                        cond,
                        sum(steps.values()),
                        steps,
                        dims,
                    )  # fmt: skip
                )
    return records


def _results(records, **kwargs):
    responses = [
        ResponseRecord(r.response_id, r.scenario, r.model_number, r.model, r.condition, 0, 0) for r in records
    ]
    return results_compute(study=None, rubric=RUBRIC, records=records, responses=responses, **kwargs)


def test_per_step_wilcoxon_marks_as_printed():
    tests = {(t.step, t.model_number): t for t in step_tests(_records(), pair=("A", "B"), steps=[1, 6])}
    better = tests[(1, "01")]
    assert better.n == 10 and better.p_value == pytest.approx(2 / 1024) and better.mark == "**"
    same = tests[(6, "02")]
    assert same.p_value is None and same.note == "all differences are zero" and same.mark == ""
    few = {t.model_number: t for t in step_tests(_records(6), pair=("A", "B"), steps=[1])}
    assert few["01"].p_value == pytest.approx(2 / 64) and few["01"].mark == ""  # * is an option only
    both = step_tests(_records(6), pair=("A", "B"), steps=[1], marks="both")
    assert {t.model_number: t.mark for t in both} == {"01": "*", "02": ""}


def test_figure3_marks_the_tested_condition_and_axes_run_to_each_step_maximum():
    fig = figure_build("steps", _results(_records()))
    axes = fig.axes
    assert [ax.get_ylim() for ax in axes] == [(0, s.max) for s in RUBRIC.steps]
    assert all(f"(max {s.max})" in ax.get_title() for ax, s in zip(axes, RUBRIC.steps, strict=True))
    assert [t.get_text() for t in axes[0].texts] == ["**"]  # model 01, Step 1, over its A bar
    assert "Wilcoxon" in fig._suptitle.get_text()


@pytest.mark.parametrize(
    "name, expected",
    [
        ("ablation", [(0, 186)]),
        ("efficiency", [(0, 1), (0, 2), (0, 2), (0, 1), (0, 2), (0, 2)]),
    ],
)
def test_other_axes_run_to_their_maximum(name, expected):
    fig = figure_build(name, _results(_records()))
    limits = sorted(ax.get_ylim() for ax in fig.axes)
    assert limits == sorted(expected)


def test_dimension_figure_axes_per_dimension():
    fig = figure_build("dimensions", _results(_records()), step=2)
    titles = {ax.get_title(): ax.get_ylim() for ax in fig.axes}
    assert titles["Step-2 Integrity (max 10)"] == (0, 10) and titles["Step-2 Focus (max 10)"] == (0, 10)


def test_diversity_against_flexibility_per_condition():
    records = _records(3)
    results = _results(records)
    results.response_diversity = {
        r.response_id: {1: {"released": 0.5}, 3: {"released": None}} for r in records
    }
    fig = figure_build("diversity_flexibility", results)
    step1, step3 = fig.axes
    offsets = [c.get_offsets() for c in step1.collections]
    assert [len(o) for o in offsets] == [6, 6]  # conditions A and B, two models x three scenarios
    assert step1.get_ylim() == (0, 1) and step1.get_xlim() == (0, 8)
    assert not step3.collections  # no Step-3 diversity: nothing drawn there


def test_diversity_against_flexibility_per_model_mean_as_the_release_plots_it():
    from research.diversity import DiversityMean

    records = _records(3)
    results = _results(records)
    results.diversity = [
        DiversityMean(f"model-{m}", m, c, s, value, 3)
        for m, c, value in (("01", "A", 0.4), ("02", "A", 0.5), ("01", "B", 0.6), ("02", "B", 0.7))
        for s in (1, 3)
    ]
    fig = figure_build("diversity_flexibility_models", results)
    step1, _ = fig.axes
    a, b = (sorted(map(tuple, c.get_offsets())) for c in step1.collections)
    flexibility = sum(2 + sc % 5 for sc in range(1, 4)) / 3  # the model's mean over its three scenarios
    assert a == [(flexibility, 0.4), (flexibility, 0.5)] and b == [(flexibility, 0.6), (flexibility, 0.7)]
    assert "per model mean (as the release plots it)" in step1.get_title()


@pytest.mark.parametrize(
    "name",
    [
        "steps",
        "dimensions",
        "efficiency",
        "diversity",
        "diversity_flexibility",
        "diversity_flexibility_models",
        "ablation",
    ],
)
def test_an_empty_figure_says_no_data_yet(name):
    fig = figure_build(name, _results([]))
    (ax,) = fig.axes
    assert [t.get_text() for t in ax.texts] == ["No data yet"]

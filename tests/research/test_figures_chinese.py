"""The figures in the reader's language: research.figures stays pure and draws the words it is
given (``FigureLabels``); research.labels says them in Chinese; the cache keeps one figure per
language; Chinese glyphs are drawn with a CJK font when one is installed."""

import re
import warnings

import pytest
from django.utils import translation

from core.accounts.roles import RESEARCHER
from judging.calibration_curve import CalibrationPoint
from judging.estimates import StepCalibration
from research.figures import CJK_FONTS, ENGLISH, figure_build, figure_bytes, judge_calibration_figure
from research.labels import figure_labels
from tests.caches import cache_clear_own
from tests.factories import UserFactory
from tests.paper_table4 import load_table4
from tests.research.test_figures import RUBRIC, _records, _results


def _zh(results=None):
    with translation.override("zh-hans"):
        return figure_labels(results)


def _texts(svg: bytes) -> str:
    """The texts of an SVG figure: matplotlib draws glyphs as paths and keeps each text as a comment."""
    return " ".join(re.findall(r"<!-- (.*?) -->", svg.decode()))


def test_english_is_the_default_and_what_an_english_reader_gets():
    with translation.override("en"):
        assert figure_labels(_results(_records())) is ENGLISH
    fig = figure_build("steps", _results(_records()))
    assert fig.axes[0].get_title() == f"Step-1 (max {RUBRIC.steps[0].max})"


def test_steps_figure_in_chinese_names_the_steps_and_the_test():
    results = _results(_records())
    fig = figure_build("steps", results, labels=_zh(results), condition_names={"B": "单一模型（基线）"})
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[0] == f"第 1 步（最高 {RUBRIC.steps[0].max}）"
    assert not any("Step" in t or "max" in t for t in titles)
    assert "符号秩检验" in fig._suptitle.get_text() and "Wilcoxon signed-rank" not in fig._suptitle.get_text()
    svg = _texts(figure_bytes(fig, "svg"))
    assert "第 1 步" in svg and "B 单一模型（基线）" in svg and "Step-1" not in svg
    english = _texts(figure_bytes(figure_build("steps", results), "svg"))
    assert "Step-1" in english and "第 1 步" not in english


def test_dimension_and_efficiency_figures_use_the_rubrics_chinese_names():
    results = _results(_records())
    labels = _zh(results)
    dimensions = [ax.get_title() for ax in figure_build("dimensions", results, step=2, labels=labels).axes]
    focus = RUBRIC.dimension("s2.focus").label.text("zh-hans")
    assert f"第 2 步 {focus}（最高 10）" in dimensions and not any("Focus" in t for t in dimensions)
    efficiency = [ax.get_title() for ax in figure_build("efficiency", results, labels=labels).axes]
    assert "第 1 步 变通性/流畅性（最高 1）" in efficiency
    assert not any("Flexibility" in t for t in efficiency)


def test_scatter_ablation_empty_and_judge_figures_in_chinese():
    records = _records(3)
    results = _results(records)
    results.response_diversity = {r.response_id: {1: {"released": 0.5}} for r in records}
    labels = _zh(results)
    step1, _ = figure_build("diversity_flexibility", results, labels=labels).axes
    assert step1.get_xlabel().startswith("第 1 步") and step1.get_ylabel().startswith("多样性")
    assert "按回答" in step1.get_title()
    (ablation,) = figure_build("ablation", results, labels=labels).axes
    assert ablation.get_ylabel() == "平均分" and ablation.get_title().startswith("总分")
    (empty,) = figure_build("ablation", _results([]), labels=labels).axes
    assert [t.get_text() for t in empty.texts] == ["尚无数据"]
    curve = StepCalibration(
        step=1, points=[CalibrationPoint(level=5, judge_mean=5.0, low=4.0, high=6.0, n=3)]
    )
    judge = judge_calibration_figure([curve], maxima={1: 10.0}, labels=_zh())
    assert judge.axes[0].get_title() == "第1步总分" and judge.axes[0].get_xlabel() == "人工最终得分"


def test_chinese_figures_are_drawn_with_a_cjk_font():
    figure_build("ablation", _results([]))  # loads matplotlib and its font list
    from matplotlib import font_manager

    from research.figures import _cjk_fonts

    installed = {f.name for f in font_manager.fontManager.ttflist}
    if not installed & set(CJK_FONTS):
        pytest.skip("no CJK font installed (Debian: fonts-noto-cjk)")
    assert _cjk_fonts()[0] == next(f for f in CJK_FONTS if f in installed)
    results = _results(_records())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Glyph ... missing from font(s) DejaVu Sans" fails here
        png = figure_bytes(figure_build("steps", results, labels=_zh(results)), "png")
    assert png.startswith(b"\x89PNG")


@pytest.mark.django_db
def test_the_figure_page_draws_in_the_readers_language_and_caches_each(client):
    cache_clear_own()  # another test's figure of the same data version would be served
    study = load_table4()
    client.force_login(UserFactory(username="res-zh-fig", role=RESEARCHER))
    url = f"/research/figures/ablation.svg?study={study.pk}"  # Table 4's study: overall scores only
    english = _texts(client.get(url).content)
    assert "Overall score: TeamLLM" in english and "B Single model (baseline)" in english
    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    chinese = _texts(client.get(url).content)  # the same data version: not the English one cached
    assert "总分：TeamLLM、无角色 TeamLLM 与基线" in chinese and "B 单一模型（基线）" in chinese
    assert "平均分" in chinese
    assert "Overall score" not in chinese and "Single model" not in chinese and "mean score" not in chinese
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert _texts(client.get(url).content) == english

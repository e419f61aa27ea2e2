"""Figures like the paper's, drawn with matplotlib (Agg, no pyplot) as SVG or PNG.

Pure: the figures are drawn from ``research.results.Results`` (the caller fetches
it); matplotlib is loaded on the first figure, so importing this module (the URL
configuration does) costs nothing.

- ``steps``: step-level means per model and condition (Figure 3), with the per-step
  Wilcoxon marks over the first condition of the tested pair
- ``dimensions``: dimension-level means of one step (appendix I)
- ``efficiency``: Flexibility/Elaboration/Originality per Yes item, Steps 1 and 3 (Figure 4)
- ``diversity``: 1 - mean Self-BLEU of Step-1 and Step-3 items, as released (section 7.2)
- ``diversity_flexibility``: each response's diversity against its Flexibility, per
  condition, Steps 1 and 3 (Figures 6 and 7, per response: the product's view)
- ``diversity_flexibility_models``: the same per model mean, as the release plots it
  (``Extract_Answer.py``, ``cal_step_similarity``, lines 159-165: Flexibility per model
  averaged over the scenarios, ``average_FS``; diversity per model averaged over its responses)
- ``ablation``: overall means of TeamLLM, the no-role ablation and the baseline (Figure 5)

Every y-axis runs from 0 to the rubric maximum its title states (ratios per Yes item to
their maxima: Flexibility 1, Elaboration and Originality 2; diversity 1); a figure with
nothing to draw says "No data yet".

The words a figure draws come in as plain strings (``FigureLabels``, English by default): the
caller says them in the reader's language (``research.labels.figure_labels``). Glyphs
DejaVu Sans lacks (Chinese) are drawn with a CJK font when one is installed (``CJK_FONTS``;
Debian: fonts-noto-cjk), else matplotlib draws boxes and warns.
"""

from __future__ import annotations

import io
import math
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from judging.estimates import StepCalibration
from research.results import Results

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FIGURES = (
    "steps",
    "dimensions",
    "efficiency",
    "diversity",
    "diversity_flexibility",
    "diversity_flexibility_models",
    "ablation",
)
# read the Yes items and Self-BLEU of CGPST's Steps 1 and 3: offered for CGPST rubrics only
CGPST_FIGURES = frozenset(
    {"efficiency", "diversity", "diversity_flexibility", "diversity_flexibility_models"}
)


def figures_offered(*, cgpst: bool) -> tuple[str, ...]:
    return FIGURES if cgpst else tuple(name for name in FIGURES if name not in CGPST_FIGURES)


# the largest value of a ratio per Yes item (Flexibility <= Fluency; Elaboration, Originality <= 2 per item)
EFFICIENCY_MAX = {"Flexibility/Fluency": 1, "Elaboration/Fluency": 2, "Originality/Fluency": 2}
FORMATS = {"svg": "image/svg+xml", "png": "image/png"}
COLORS = ["#1f5fbf", "#e07b39", "#3a9a5b", "#9b59b6", "#c0392b", "#7f8c8d"]
ABLATION_ORDER = ("A", "C", "B")  # TeamLLM, without roles, single model
# fonts for the glyphs DejaVu Sans lacks, the first installed one first
CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Zen Hei")
_lock = threading.Lock()
_ready = False


@dataclass(frozen=True)
class FigureLabels:
    """The words the figures draw: %-format strings with named fields, and the names of the
    Table 1/2 columns (by key) and efficiency metrics; English (the release's) by default."""

    step_max: str = "Step-%(step)s (max %(max)s)"
    step_name_max: str = "Step-%(step)s %(name)s (max %(max)s)"
    wilcoxon: str = "Wilcoxon signed-rank test per step and model, %(a)s vs %(b)s: ** p < 0.01"
    wilcoxon_05: str = ", * p < 0.05"
    diversity: str = "Step-%(step)s diversity (1 - Self-BLEU, as released; max 1)"
    overall: str = "Overall score: TeamLLM, without roles, baseline (max %(max)s)"
    mean_score: str = "mean score"
    no_data: str = "No data yet"
    flexibility_axis: str = "Step-%(step)s Flexibility (max %(max)s)"
    diversity_axis: str = "Diversity (1 - Self-BLEU, as released; max 1)"
    scatter_title: str = "Step-%(step)s: diversity against flexibility, %(unit)s"
    per_response: str = "per response, per condition"
    per_model: str = "per model mean (as the release plots it)"
    step_total: str = "Step %(n)s total"
    overall_panel: str = "Overall"
    humans_final: str = "humans' final score"
    judge_mean: str = "judge's mean"
    columns: Mapping[str, str] = field(default_factory=dict)  # column key -> name (else its label)
    metrics: Mapping[str, str] = field(default_factory=dict)  # "Flexibility/Fluency" -> name


ENGLISH = FigureLabels()


def _figure_class() -> type[Figure]:
    """matplotlib's Figure, loaded (Agg backend, stable SVG ids) on first use."""
    global _ready
    import matplotlib

    if not _ready:
        with _lock:
            if not _ready:
                matplotlib.use("Agg")
                matplotlib.rcParams["svg.hashsalt"] = "teamllm-web"  # stable SVG ids
                matplotlib.rcParams["font.family"] = ["DejaVu Sans", *_cjk_fonts()]
                _ready = True
    from matplotlib.figure import Figure

    return Figure


def _cjk_fonts() -> list[str]:
    """The installed fonts of ``CJK_FONTS``: matplotlib falls back to them glyph by glyph."""
    from matplotlib import font_manager

    installed = {font.name for font in font_manager.fontManager.ttflist}
    return [name for name in CJK_FONTS if name in installed]


def _bars(
    ax,
    models: list[str],
    series: dict[str, list[float | None]],
    title: str,
    ylabel: str = "",
    *,
    ymax: float | None = None,
    marks: dict[int, str] | None = None,
) -> bool:
    """Grouped bars; ``marks`` (model index -> "**") go above the first series' bars.
    Returns whether any bar has a value."""
    n = max(len(series), 1)
    width = 0.8 / n
    for i, (name, values) in enumerate(series.items()):
        xs = [x + (i - (n - 1) / 2) * width for x in range(len(models))]
        ax.bar(xs, [0 if v is None else v for v in values], width, label=name, color=COLORS[i % len(COLORS)])
        if i == 0 and marks:
            for x, value, index in zip(xs, values, range(len(models)), strict=True):
                if marks.get(index) and value is not None:
                    ax.annotate(marks[index], (x, value), ha="center", va="bottom", fontsize=8)
    if ymax:
        ax.set_ylim(0, ymax)
    ax.set_title(title, fontsize=9)
    ax.set_xticks(range(len(models)))
    ax.set_xticklabels(models, rotation=45, ha="right", fontsize=7)
    ax.tick_params(axis="y", labelsize=7)
    if ylabel:
        ax.set_ylabel(ylabel, fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return any(v is not None for values in series.values() for v in values)


def _grid(n: int, cols: int = 3) -> tuple[int, int]:
    cols = min(cols, max(n, 1))
    return math.ceil(max(n, 1) / cols), cols


def _table2_series(results: Results, column_keys: list[str]):
    index = {c.key: i for i, c in enumerate(results.columns)}
    models: dict[str, str] = {}
    values: dict[tuple[str, str, str], float | None] = {}
    for table in results.table2:
        for row in table.rows:
            models[row.model_number] = row.model
            for key in column_keys:
                values[(table.condition, row.model_number, key)] = row.values[index[key]]
    return models, values


def _label(letter: str, names: Mapping[str, str]) -> str:
    return f"{letter} {names[letter]}" if letter in names else letter


def _column_max(results: Results, key: str) -> float:
    """The rubric maximum of a Table 1/2 column."""
    if key == "overall":
        return results.rubric.max_total
    if key.startswith("step."):
        return results.rubric.step(int(key.removeprefix("step."))).max
    if key.endswith(".integrity"):
        step = results.rubric.step(int(key[1 : key.index(".")]))
        return sum(d.max for d in step.dimensions if d.integrity)
    return results.rubric.dimension(key).max


def figure_build(
    name: str,
    results: Results,
    *,
    step: int = 1,
    condition_names: Mapping[str, str] | None = None,
    labels: FigureLabels = ENGLISH,
) -> Figure:
    names = condition_names or {}
    fig = _figure_class()(figsize=(11, 6.5), dpi=100, layout="constrained")
    conditions = results.conditions
    drawn = False
    if name == "steps":
        keys = [f"step.{s.number}" for s in results.rubric.steps]
        models, values = _table2_series(results, keys)
        rows, cols = _grid(len(keys))
        order = list(models)
        tested = {(t.step, t.model_number): t.mark for t in results.step_tests}
        pair = results.overall.pair if results.overall else None
        shown = (
            ([pair[0]] + [c for c in conditions if c != pair[0]])
            if pair and pair[0] in conditions
            else conditions
        )
        for i, key in enumerate(keys):
            number = results.rubric.steps[i].number
            ax = fig.add_subplot(rows, cols, i + 1)
            series = {_label(c, names): [values.get((c, m, key)) for m in models] for c in shown}
            marks = {j: tested.get((number, m), "") for j, m in enumerate(order)}
            drawn |= _bars(
                ax, list(models.values()), series,
                labels.step_max % {"step": number, "max": results.rubric.steps[i].max},
                ymax=results.rubric.steps[i].max, marks=marks,
            )  # fmt: skip
        if pair and results.step_tests:
            fig.suptitle(labels.wilcoxon % {"a": pair[0], "b": pair[1]}
                         + (labels.wilcoxon_05 if results.marks == "both" else ""), fontsize=9)  # fmt: skip
    elif name == "dimensions":
        columns = [c for c in results.columns if c.step == step and not c.key.startswith("step.")]
        models, values = _table2_series(results, [c.key for c in columns])
        rows, cols = _grid(len(columns))
        for i, col in enumerate(columns):
            ax = fig.add_subplot(rows, cols, i + 1)
            series = {_label(c, names): [values.get((c, m, col.key)) for m in models] for c in conditions}
            top = _column_max(results, col.key)
            label = labels.columns.get(col.key, col.label)
            title = labels.step_name_max % {"step": step, "name": label, "max": f"{top:g}"}
            drawn |= _bars(ax, list(models.values()), series, title, ymax=top)
    elif name == "efficiency":
        metrics = sorted({(g.step, g.metric) for g in results.efficiency})
        models = {g.model_number: g.model for g in sorted(results.efficiency, key=lambda g: g.model_number)}
        values = {(g.condition, g.model_number, g.step, g.metric): g.value for g in results.efficiency}
        for i, (s, metric) in enumerate(metrics):
            ax = fig.add_subplot(2, 3, i + 1)
            series = {_label(c, names): [values.get((c, m, s, metric)) for m in models] for c in conditions}
            top = EFFICIENCY_MAX.get(metric, 1)
            title = labels.step_name_max % {"step": s, "name": labels.metrics.get(metric, metric), "max": top}
            drawn |= _bars(ax, list(models.values()), series, title, ymax=top)
    elif name == "diversity":
        models = {d.model_number: d.model for d in sorted(results.diversity, key=lambda d: d.model_number)}
        values = {(d.condition, d.model_number, d.step): d.value for d in results.diversity}
        present = sorted({d.condition for d in results.diversity})
        for i, s in enumerate((1, 3)):
            ax = fig.add_subplot(1, 2, i + 1)
            series = {_label(c, names): [values.get((c, m, s)) for m in models] for c in present}
            title = labels.diversity % {"step": s}
            drawn |= _bars(ax, list(models.values()), series, title, ymax=1)
    elif name == "diversity_flexibility":
        drawn = _diversity_flexibility(fig, results, names, labels)
    elif name == "diversity_flexibility_models":
        drawn = _diversity_flexibility_models(fig, results, names, labels)
    elif name == "ablation":
        chosen = [c for c in ABLATION_ORDER if c in conditions] or conditions
        models, values = _table2_series(results, ["overall"])
        ax = fig.add_subplot(1, 1, 1)
        series = {_label(c, names): [values.get((c, m, "overall")) for m in models] for c in chosen}
        title = labels.overall % {"max": results.rubric.max_total}
        top = results.rubric.max_total
        drawn = _bars(ax, list(models.values()), series, title, labels.mean_score, ymax=top)
    else:
        raise KeyError(name)
    if not drawn:
        for ax in list(fig.axes):
            fig.delaxes(ax)
        fig.suptitle("")
        ax = fig.add_subplot(1, 1, 1)
        ax.text(0.5, 0.5, labels.no_data, ha="center", va="center")
        ax.set_axis_off()
    else:
        handles, names_drawn = fig.axes[0].get_legend_handles_labels()
        if handles:
            fig.legend(
                handles, names_drawn, loc="outside lower center", ncol=min(len(names_drawn), 6), fontsize=8
            )
    return fig


def _scatter_steps(
    fig, results: Results, names: Mapping[str, str], points_for, unit: str, labels: FigureLabels
) -> bool:
    """Flexibility against diversity (as released), one colour per condition, Steps 1 and 3."""
    drawn = False
    for i, s in enumerate((1, 3)):
        ax = fig.add_subplot(1, 2, i + 1)
        top = results.rubric.dimension(f"s{s}.flexibility").max
        for j, condition in enumerate(results.conditions):
            points = [(x, y) for x, y in points_for(s, condition) if x is not None and y is not None]
            if points:
                drawn = True
                ax.scatter(*zip(*points, strict=True), s=18, label=_label(condition, names),
                           color=COLORS[j % len(COLORS)], alpha=0.8)  # fmt: skip
        ax.set_xlim(0, top)
        ax.set_ylim(0, 1)
        ax.set_xlabel(labels.flexibility_axis % {"step": s, "max": top}, fontsize=8)
        ax.set_ylabel(labels.diversity_axis, fontsize=8)
        ax.set_title(labels.scatter_title % {"step": s, "unit": unit}, fontsize=9)
        ax.grid(alpha=0.3)
    return drawn


def _diversity_flexibility(fig, results: Results, names: Mapping[str, str], labels: FigureLabels) -> bool:
    """Figures 6 and 7 per response (the product's view): Flexibility (final score) against
    diversity (as released), one colour per condition; Step 1 and Step 3 side by side."""
    by_response = {r.response_id: r for r in results.records}

    def points(s: int, condition: str):
        return [
            (record.dimensions.get(f"s{s}.flexibility"), values.get(s, {}).get("released"))
            for rid, values in results.response_diversity.items()
            if (record := by_response.get(rid)) is not None and record.condition == condition
        ]

    return _scatter_steps(fig, results, names, points, labels.per_response, labels)


def _diversity_flexibility_models(
    fig, results: Results, names: Mapping[str, str], labels: FigureLabels
) -> bool:
    """Figures 6 and 7 as the release plots them: one point per model and condition, its mean
    Flexibility over the scenarios (Table 2) against its mean diversity (as released)."""
    _, flexibility = _table2_series(results, ["s1.flexibility", "s3.flexibility"])
    diversity = {(d.condition, d.model_number, d.step): d.value for d in results.diversity}

    def points(s: int, condition: str):
        return [
            (flexibility.get((condition, number, f"s{s}.flexibility")), value)
            for (c, number, step), value in diversity.items()
            if c == condition and step == s
        ]

    return _scatter_steps(fig, results, names, points, labels.per_model, labels)


def figure_bytes(fig: Figure, fmt: str) -> bytes:
    if fmt not in FORMATS:
        raise KeyError(fmt)
    out = io.BytesIO()
    fig.savefig(out, format=fmt)
    return out.getvalue()


def judge_calibration_figure(
    calibration: Sequence[StepCalibration],
    *,
    maxima: dict[int | None, float],
    labels: FigureLabels = ENGLISH,
) -> Figure:
    """The judge's mean score (95% interval) at each score level the humans' final score reached,
    one panel per step total and the overall score, the diagonal where the judge agrees
    (beyond the study; issue 39). ``maxima``: each panel's rubric maximum (None: overall)."""
    fig = _figure_class()(figsize=(12, 6.2), layout="constrained")
    axes = fig.subplots(2, 4).flatten()
    for ax, curve in zip(axes, calibration, strict=False):
        top = maxima.get(curve.step, 1.0)
        ax.plot([0, top], [0, top], linestyle="--", color="#7f8c8d", linewidth=1)
        points = curve.points
        if points:
            lows = [p.judge_mean - p.low if p.low is not None else 0.0 for p in points]
            highs = [p.high - p.judge_mean if p.high is not None else 0.0 for p in points]
            ax.errorbar(
                [p.level for p in points], [p.judge_mean for p in points], yerr=[lows, highs],
                marker="o", color=COLORS[0], capsize=3,
            )  # fmt: skip
        else:
            ax.text(0.5, 0.5, labels.no_data, ha="center", va="center", transform=ax.transAxes)
        ax.set_xlim(0, top)
        ax.set_ylim(0, top)
        ax.set_title(
            labels.step_total % {"n": curve.step} if curve.step is not None else labels.overall_panel
        )
        ax.set_xlabel(labels.humans_final)
        ax.set_ylabel(labels.judge_mean)
    for ax in axes[len(calibration) :]:
        ax.set_visible(False)
    return fig

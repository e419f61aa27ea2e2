"""Figures like the paper's, drawn with matplotlib (Agg, no pyplot) as SVG or PNG.

Pure: the figures are drawn from ``research.results.Results`` (the caller fetches
it); matplotlib is loaded on the first figure, so importing this module (the URL
configuration does) costs nothing.

- ``steps``: step-level means per model and condition (Figure 3)
- ``dimensions``: dimension-level means of one step (appendix I)
- ``efficiency``: Flexibility/Elaboration/Originality per Yes item, Steps 1 and 3 (Figure 4)
- ``diversity``: 1 - mean Self-BLEU of Step-1 and Step-3 items (section 7.2)
- ``ablation``: overall means of TeamLLM, the no-role ablation and the baseline (Figure 5)
"""

from __future__ import annotations

import io
import math
import threading
from typing import TYPE_CHECKING

from research.results import Results

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FIGURES = ("steps", "dimensions", "efficiency", "diversity", "ablation")
FORMATS = {"svg": "image/svg+xml", "png": "image/png"}
COLORS = ["#1f5fbf", "#e07b39", "#3a9a5b", "#9b59b6", "#c0392b", "#7f8c8d"]
ABLATION_ORDER = ("A", "C", "B")  # TeamLLM, without roles, single model
_lock = threading.Lock()
_ready = False


def _figure_class() -> type[Figure]:
    """matplotlib's Figure, loaded (Agg backend, stable SVG ids) on first use."""
    global _ready
    import matplotlib

    if not _ready:
        with _lock:
            if not _ready:
                matplotlib.use("Agg")
                matplotlib.rcParams["svg.hashsalt"] = "teamllm-web"  # stable SVG ids
                _ready = True
    from matplotlib.figure import Figure

    return Figure


def _bars(ax, models: list[str], series: dict[str, list[float | None]], title: str, ylabel: str = "") -> None:
    n = max(len(series), 1)
    width = 0.8 / n
    for i, (name, values) in enumerate(series.items()):
        xs = [x + (i - (n - 1) / 2) * width for x in range(len(models))]
        ax.bar(xs, [0 if v is None else v for v in values], width, label=name, color=COLORS[i % len(COLORS)])
    ax.set_title(title, fontsize=9)
    ax.set_xticks(range(len(models)))
    ax.set_xticklabels(models, rotation=45, ha="right", fontsize=7)
    ax.tick_params(axis="y", labelsize=7)
    if ylabel:
        ax.set_ylabel(ylabel, fontsize=8)
    ax.grid(axis="y", alpha=0.3)


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


def _label(letter: str, names: dict[str, str]) -> str:
    return f"{letter} {names[letter]}" if letter in names else letter


def figure_build(
    name: str, results: Results, *, step: int = 1, condition_names: dict[str, str] | None = None
) -> Figure:
    names = condition_names or {}
    fig = _figure_class()(figsize=(11, 6.5), dpi=100, layout="constrained")
    conditions = results.conditions
    if name == "steps":
        keys = [f"step.{s.number}" for s in results.rubric.steps]
        models, values = _table2_series(results, keys)
        rows, cols = _grid(len(keys))
        for i, key in enumerate(keys):
            ax = fig.add_subplot(rows, cols, i + 1)
            series = {_label(c, names): [values.get((c, m, key)) for m in models] for c in conditions}
            _bars(ax, list(models.values()), series, f"Step-{i + 1} (max {results.rubric.steps[i].max})")
    elif name == "dimensions":
        columns = [c for c in results.columns if c.step == step and not c.key.startswith("step.")]
        models, values = _table2_series(results, [c.key for c in columns])
        rows, cols = _grid(len(columns))
        for i, col in enumerate(columns):
            ax = fig.add_subplot(rows, cols, i + 1)
            series = {_label(c, names): [values.get((c, m, col.key)) for m in models] for c in conditions}
            _bars(ax, list(models.values()), series, f"Step-{step} {col.label}")
    elif name == "efficiency":
        metrics = sorted({(g.step, g.metric) for g in results.efficiency})
        models = {g.model_number: g.model for g in sorted(results.efficiency, key=lambda g: g.model_number)}
        values = {(g.condition, g.model_number, g.step, g.metric): g.value for g in results.efficiency}
        for i, (s, metric) in enumerate(metrics):
            ax = fig.add_subplot(2, 3, i + 1)
            series = {_label(c, names): [values.get((c, m, s, metric)) for m in models] for c in conditions}
            _bars(ax, list(models.values()), series, f"Step-{s} {metric}")
    elif name == "diversity":
        models = {d.model_number: d.model for d in sorted(results.diversity, key=lambda d: d.model_number)}
        values = {(d.condition, d.model_number, d.step): d.value for d in results.diversity}
        present = sorted({d.condition for d in results.diversity})
        for i, s in enumerate((1, 3)):
            ax = fig.add_subplot(1, 2, i + 1)
            series = {_label(c, names): [values.get((c, m, s)) for m in models] for c in present}
            _bars(ax, list(models.values()), series, f"Step-{s} diversity (1 - Self-BLEU)")
    elif name == "ablation":
        chosen = [c for c in ABLATION_ORDER if c in conditions] or conditions
        models, values = _table2_series(results, ["overall"])
        ax = fig.add_subplot(1, 1, 1)
        series = {_label(c, names): [values.get((c, m, "overall")) for m in models] for c in chosen}
        _bars(
            ax, list(models.values()), series, "Overall score: TeamLLM, without roles, baseline", "mean score"
        )
    else:
        raise KeyError(name)
    if not fig.axes:
        ax = fig.add_subplot(1, 1, 1)
        ax.text(0.5, 0.5, "No data yet", ha="center", va="center")
        ax.set_axis_off()
    else:
        handles, labels = fig.axes[0].get_legend_handles_labels()
        if handles:
            fig.legend(handles, labels, loc="outside lower center", ncol=min(len(labels), 6), fontsize=8)
    return fig


def figure_bytes(fig: Figure, fmt: str) -> bytes:
    if fmt not in FORMATS:
        raise KeyError(fmt)
    out = io.BytesIO()
    fig.savefig(out, format=fmt)
    return out.getvalue()

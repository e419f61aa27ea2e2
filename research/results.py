"""The paper's tables from final-score records (pure: no ORM, no project module that has one).

The records are plain dataclasses (``ScoreRecord``, ``ResponseRecord``) that
``research.selectors.results`` reads from the database; ``results_compute`` turns
them into every table (``research.selectors.research.results_get`` fetches and
calls it). numpy and scipy are imported inside the significance tests only.

- Table 1: rows scenario x model per condition; columns step x dimension with
  Step-2 Integrity merged (layout of ``research/data/results-table1-template.xlsx``)
- Table 2: rows model (mean over scenarios), same columns
- overall table (Table 4) with Wilcoxon signed-rank tests per model over the
  scenarios, two-sided (scipy's defaults), ** p < 0.01, * p < 0.05
- Table 5: Step-3 blank items per model and condition
- efficiency: Flexibility/Fluency, Elaboration/Fluency, Originality/Fluency for
  Steps 1 and 3, the mean of per-response ratios (responses with Fluency > 0)

Integrity is computed with ``studies.rubric.integrity_sum``; nothing here adds
up sheet scores.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import TYPE_CHECKING, Any

from research.diversity import DiversityMean
from studies.rubric import Rubric, integrity_sum

if TYPE_CHECKING:
    import numpy as np

# Column headers exactly as in the study's result templates.
TEMPLATE_LABELS = {
    "fluency": "Fluency",
    "flexibility": "Flexibility",
    "elaboration": "Elaboration",
    "originality": "Originality",
    "focus": "Focus",
    "adequacy": "Adequacy",
    "correctly_written": "Correctly Written",
    "relevance": "Relevance",
    "correctly_used": "Correctly Used",
    "effectiveness": "Effectiveness",
    "criteria": "Criteria",
    "impact": "Impact",
    "humaneness": "Humaness",  # sic, as in the templates
    "development": "Development",
}
INTEGRITY = "integrity"
EFFICIENCY_METRICS = (
    ("flexibility", "Flexibility/Fluency"),
    ("elaboration", "Elaboration/Fluency"),
    ("originality", "Originality/Fluency"),
)


@dataclass(frozen=True)
class ScoreRecord:
    """One response's final score with the facts the tables group by."""

    response_id: int
    research_id: str
    scenario: str
    model_number: str
    model: str
    condition: str
    overall: float
    steps: dict[int, float] = field(default_factory=dict)
    dimensions: dict[str, float] = field(default_factory=dict)
    calibrated: bool = False


@dataclass(frozen=True)
class ResponseRecord:
    """A response's text-derived facts (no scores): blank items and parsed items."""

    response_id: int
    scenario: str
    model_number: str
    model: str
    condition: str
    step1_blank_items: int
    step3_blank_items: int


def significance_mark(p: float | None) -> str:
    if p is None or math.isnan(p):
        return ""
    if p < 0.01:
        return "**"
    if p < 0.05:
        return "*"
    return ""


@dataclass(frozen=True)
class Column:
    step: int  # 0 for the total score
    key: str  # dimension key, "s2.integrity", "step.<n>" or "overall"
    label: str


def table_columns(rubric: Rubric) -> list[Column]:
    columns: list[Column] = []
    for step in rubric.steps:
        integrity_done = False
        for d in step.dimensions:
            if d.integrity:
                if not integrity_done:
                    columns.append(Column(step.number, f"s{step.number}.{INTEGRITY}", "Integrity"))
                    integrity_done = True
                continue
            columns.append(Column(step.number, d.key, TEMPLATE_LABELS.get(d.short_key, d.label.en)))
        columns.append(Column(step.number, f"step.{step.number}", "Overall"))
    columns.append(Column(0, "overall", "Total Score"))
    return columns


def record_values(record: ScoreRecord, rubric: Rubric) -> dict[str, float | None]:
    """Every table column of one final score."""
    dims = record.dimensions
    values: dict[str, float | None] = {d.key: dims.get(d.key) for d in rubric.dimensions}
    for step in rubric.steps:
        values[f"step.{step.number}"] = record.steps.get(step.number)
        if any(d.integrity for d in step.dimensions):
            if all(d.key in dims for d in step.dimensions if d.integrity):
                values[f"s{step.number}.{INTEGRITY}"] = float(integrity_sum(dims, rubric))
            else:
                values[f"s{step.number}.{INTEGRITY}"] = None
    values["overall"] = record.overall
    return values


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return fmean(present) if present else None


@dataclass
class TableRow:
    scenario: str
    model: str
    model_number: str
    values: list[float | None]


@dataclass
class ConditionTable:
    condition: str
    rows: list[TableRow]


def table1(records: Sequence[ScoreRecord], rubric: Rubric, columns: list[Column]) -> list[ConditionTable]:
    """Per condition: one row per scenario x model (mean if a cell has several responses)."""
    cells: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    names: dict[str, str] = {}
    for r in records:
        cells[(r.condition, r.scenario, r.model_number)].append(record_values(r, rubric))
        names[r.model_number] = r.model
    tables = []
    for condition in sorted({k[0] for k in cells}):
        keys = sorted((k for k in cells if k[0] == condition), key=lambda k: (_scenario_order(k[1]), k[2]))
        rows = [
            TableRow(
                scenario=scenario,
                model=names[number],
                model_number=number,
                values=[_mean(v.get(c.key) for v in cells[(condition, scenario, number)]) for c in columns],
            )
            for _, scenario, number in keys
        ]
        tables.append(ConditionTable(condition, rows))
    return tables


def table2(tables1: list[ConditionTable]) -> list[ConditionTable]:
    """Per condition: one row per model, each column the mean over its scenarios."""
    out = []
    for table in tables1:
        by_model: dict[str, list[TableRow]] = defaultdict(list)
        for row in table.rows:
            by_model[row.model_number].append(row)
        rows = [
            TableRow(
                scenario="",
                model=rows[0].model,
                model_number=number,
                values=[_mean(r.values[i] for r in rows) for i in range(len(rows[0].values))],
            )
            for number, rows in sorted(by_model.items())
        ]
        out.append(ConditionTable(table.condition, rows))
    return out


def _scenario_order(code: str) -> tuple:
    digits = "".join(ch for ch in code if ch in "0123456789")  # "²".isdigit(), but int() fails
    return (code.rstrip("0123456789"), int(digits) if digits else 0, code)


# --- overall table and significance -----------------------------------------------


@dataclass(frozen=True)
class PairTest:
    model: str
    model_number: str
    n: int
    mean_a: float | None
    mean_b: float | None
    statistic: float | None
    p_value: float | None
    note: str = ""

    @property
    def mark(self) -> str:
        return significance_mark(self.p_value)


@dataclass
class OverallRow:
    model: str
    model_number: str
    condition: str
    scores: list[float | None]
    average: float | None
    mark: str = ""


@dataclass
class OverallTable:
    scenarios: list[str]
    pair: tuple[str, str]
    rows: list[OverallRow] = field(default_factory=list)
    tests: list[PairTest] = field(default_factory=list)


def wilcoxon_test(a: Sequence[float], b: Sequence[float]) -> tuple[float | None, float | None, str]:
    """Two-sided Wilcoxon signed-rank test of paired samples (scipy's default zero handling)."""
    if len(a) == 0:
        return None, None, "no paired scenarios"
    if all(x == y for x, y in zip(a, b, strict=True)):
        return None, None, "all differences are zero"
    import numpy as np
    from scipy.stats import wilcoxon

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
            nonzero = np.abs(d[d != 0])
            if len(d) <= PERMUTATION_MAX_N and (
                len(nonzero) < len(d) or len(np.unique(nonzero)) < len(nonzero)
            ):
                statistic, p = _signed_rank_permutation_test(d)
            else:
                result = wilcoxon(a, b, alternative="two-sided")
                statistic, p = float(result.statistic), float(result.pvalue)
    except ValueError as exc:
        return None, None, str(exc)
    return statistic, (None if math.isnan(p) else p), ""


# scipy's wilcoxon (method "auto") turns to an exact permutation test over the 2**n sign
# flips when the differences have ties or zeros and n <= 13; it evaluates its rank
# statistic once per flip (1,024 calls for ten scenarios, ~0.2 s per model). The same
# test with the statistic vectorized over all flips at once gives the same numbers
# (tests/research/test_wilcoxon_test.py compares them with scipy's wilcoxon).
PERMUTATION_MAX_N = 13


def _positive_rank_sum(d: np.ndarray, axis: int = -1) -> np.ndarray:
    """Sum of the ranks of |d| (zeros dropped, ties averaged) over the positive differences."""
    import numpy as np
    from scipy.stats import rankdata

    d = np.moveaxis(d, axis, -1)
    ranks = rankdata(np.where(d == 0, np.inf, np.abs(d)), axis=-1)  # zeros rank last, unused
    return np.where(d > 0, ranks, 0.0).sum(axis=-1)


def _signed_rank_permutation_test(d: np.ndarray) -> tuple[float, float]:
    from scipy.stats import permutation_test

    r_plus = float(_positive_rank_sum(d))
    r_minus = float(_positive_rank_sum(-d))
    result = permutation_test(
        (d,),
        _positive_rank_sum,
        permutation_type="samples",
        vectorized=True,
        n_resamples=9999,
        alternative="two-sided",
        axis=-1,
    )
    return min(r_plus, r_minus), float(result.pvalue)


def overall_table(
    records: Sequence[ScoreRecord], *, pair: tuple[str, str], conditions: Sequence[str] | None = None
) -> OverallTable:
    """Mean final score per model x condition x scenario; a test per model of ``pair``
    (first condition vs second) over the scenarios where both have a score. The
    first condition's average carries the mark, as in the paper."""
    cells: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    names: dict[str, str] = {}
    for r in records:
        cells[(r.model_number, r.condition, r.scenario)].append(r.overall)
        names[r.model_number] = r.model
    scenarios = sorted({k[2] for k in cells}, key=_scenario_order)
    shown = list(conditions) if conditions else sorted({k[1] for k in cells})
    for letter in pair:
        if letter not in shown:
            shown.append(letter)
    table = OverallTable(scenarios=scenarios, pair=pair)
    for number in sorted(names):
        means = {
            (cond, sc): fmean(cells[(number, cond, sc)])
            for cond in shown
            for sc in scenarios
            if cells.get((number, cond, sc))
        }
        a_sc = [sc for sc in scenarios if (pair[0], sc) in means and (pair[1], sc) in means]
        a = [means[(pair[0], sc)] for sc in a_sc]
        b = [means[(pair[1], sc)] for sc in a_sc]
        stat, p, note = wilcoxon_test(a, b)
        test = PairTest(
            model=names[number],
            model_number=number,
            n=len(a_sc),
            mean_a=fmean(a) if a else None,
            mean_b=fmean(b) if b else None,
            statistic=stat,
            p_value=p,
            note=note,
        )
        table.tests.append(test)
        for cond in shown:
            scores = [means.get((cond, sc)) for sc in scenarios]
            if all(s is None for s in scores):
                continue
            table.rows.append(
                OverallRow(
                    model=names[number],
                    model_number=number,
                    condition=cond,
                    scores=scores,
                    average=_mean(scores),
                    mark=test.mark if cond == pair[0] else "",
                )
            )
    return table


def default_pair(letters: Iterable[str]) -> tuple[str, str] | None:
    """TeamLLM (A) vs baseline (B) when both are there, else the first two conditions."""
    present = sorted(set(letters))
    if {"A", "B"} <= set(present):
        return ("A", "B")
    return (present[0], present[1]) if len(present) >= 2 else None


# --- Table 5 and efficiency -------------------------------------------------------


@dataclass(frozen=True)
class GroupMean:
    model: str
    model_number: str
    condition: str
    step: int
    metric: str
    value: float | None
    n: int


def blanks_table(responses: Sequence[ResponseRecord], *, step: int = 3) -> list[GroupMean]:
    """Mean number of blank items per response in Step 3 (Table 5), per model and condition."""
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    names = {}
    for r in responses:
        groups[(r.model_number, r.condition)].append(
            r.step3_blank_items if step == 3 else r.step1_blank_items
        )
        names[r.model_number] = r.model
    return [
        GroupMean(names[m], m, c, step, "blank items", fmean(v), len(v))
        for (m, c), v in sorted(groups.items())
    ]


def efficiency_table(records: Sequence[ScoreRecord], *, steps=(1, 3)) -> list[GroupMean]:
    groups: dict[tuple[str, str, int, str], list[float]] = defaultdict(list)
    names = {}
    for r in records:
        names[r.model_number] = r.model
        for step in steps:
            fluency = r.dimensions.get(f"s{step}.fluency")
            for key, metric in EFFICIENCY_METRICS:
                value = r.dimensions.get(f"s{step}.{key}")
                group = groups[(r.model_number, r.condition, step, metric)]
                if fluency and value is not None:
                    group.append(value / fluency)
    return [
        GroupMean(names[m], m, c, s, metric, fmean(v) if v else None, len(v))
        for (m, c, s, metric), v in sorted(groups.items())
    ]


# --- everything together -----------------------------------------------------------


@dataclass
class Results:
    """Everything a researcher sees of one study. ``study`` is the caller's and opaque
    here (pages and exports show its name); ``consistency`` is Table 6 as the
    calibration selectors computed it."""

    study: Any
    rubric: Rubric
    columns: list[Column]
    records: list[ScoreRecord]
    responses: list[ResponseRecord]
    table1: list[ConditionTable]
    table2: list[ConditionTable]
    overall: OverallTable | None
    blanks: list[GroupMean]
    efficiency: list[GroupMean]
    diversity: list[DiversityMean] = field(default_factory=list)
    conditions: list[str] = field(default_factory=list)
    consistency: dict = field(default_factory=dict)


def results_compute(
    *,
    study: Any,
    rubric: Rubric,
    records: list[ScoreRecord],
    responses: list[ResponseRecord],
    pair: tuple[str, str] | None = None,
    consistency: dict | None = None,
) -> Results:
    """Every table from the records (diversity is added by the caller, it needs the items)."""
    columns = table_columns(rubric)
    present = sorted({r.condition for r in records})
    pair = pair or default_pair(present)
    t1 = table1(records, rubric, columns)
    return Results(
        study=study,
        rubric=rubric,
        columns=columns,
        records=records,
        responses=responses,
        table1=t1,
        table2=table2(t1),
        overall=overall_table(records, pair=pair, conditions=present) if pair else None,
        blanks=blanks_table(responses),
        efficiency=efficiency_table(records),
        conditions=present,
        consistency=consistency or {},
    )


def fmt(value: float | None, digits: int = 2) -> str:
    """Numbers as the paper prints them: up to ``digits`` decimals, no trailing zeros."""
    if value is None:
        return ""
    text = f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text

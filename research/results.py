"""The paper's tables from final-score records (pure: no ORM, no project module that has one).

The records are plain dataclasses (``research.records``) that
``research.selectors.results`` reads from the database; ``results_compute`` turns
them into every table (``research.selectors.research.results_get`` fetches and
calls it).

- Table 1: rows scenario x model per condition; columns step x dimension with
  Step-2 Integrity merged (layout of ``research/data/results-table1-template.xlsx``)
- Table 2: rows model (mean over scenarios), same columns
- Table 4 and Figure 3's per-step tests: ``research.significance``
- Table 5 (blanks from the raters) and efficiency: ``research.group_tables``

Integrity is computed with ``studies.rubric.integrity_sum``; nothing here adds
up sheet scores.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from research.cost import CostMean, RunCost
from research.diversity import DiversityMean
from research.group_tables import (
    BlankDisagreement,
    BlankRow,
    GroupMean,
    blank_disagreements,
    blanks_table,
    efficiency_table,
)
from research.records import ResponseRecord, ScoreRecord, mean_defined, scenario_order
from research.significance import (
    MARKS_PAPER,
    OverallTable,
    StepTest,
    default_pair,
    overall_table,
    significance_mark,
    step_tests,
    wilcoxon_test,
)
from studies.rubric import Rubric, integrity_sum
from studies.rubric.cgpst import version_is_cgpst

__all__ = [
    "BlankDisagreement",
    "BlankRow",
    "GroupMean",
    "ResponseRecord",
    "Results",
    "ScoreRecord",
    "blanks_table",
    "efficiency_table",
    "fmt",
    "overall_table",
    "results_compute",
    "significance_mark",
    "wilcoxon_test",
]

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
        keys = sorted((k for k in cells if k[0] == condition), key=lambda k: (scenario_order(k[1]), k[2]))
        rows = [
            TableRow(
                scenario=scenario,
                model=names[number],
                model_number=number,
                values=[
                    mean_defined(v.get(c.key) for v in cells[(condition, scenario, number)]) for c in columns
                ],
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
                values=[mean_defined(r.values[i] for r in rows) for i in range(len(rows[0].values))],
            )
            for number, rows in sorted(by_model.items())
        ]
        out.append(ConditionTable(table.condition, rows))
    return out


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
    blanks: list[BlankRow]
    efficiency: list[GroupMean]
    blank_disagreements: list[BlankDisagreement] = field(default_factory=list)
    step_tests: list[StepTest] = field(default_factory=list)
    marks: str = MARKS_PAPER
    # per response: diversity by step and variant (Figures 6 and 7)
    response_diversity: dict[int, dict[int, dict[str, float | None]]] = field(default_factory=dict)
    run_costs: list[RunCost] = field(default_factory=list)  # generation cost per run
    cost: list[CostMean] = field(default_factory=list)  # and per model and condition
    diversity: list[DiversityMean] = field(default_factory=list)
    conditions: list[str] = field(default_factory=list)
    consistency: dict = field(default_factory=dict)
    # a pairwise study's Bradley-Terry scores (research.bradley_terry.BtScore) and system labels
    preferences: list[Any] = field(default_factory=list)
    preference_labels: dict[str, str] = field(default_factory=dict)

    @property
    def preference_rows(self) -> list[tuple[Any, str]]:
        """Each Bradley-Terry score with its system's label (model · condition)."""
        return [(p, self.preference_labels.get(p.system, "")) for p in self.preferences]

    @property
    def preference_groups(self) -> int:
        """How many groups of systems the comparisons link (more than one: scores compare only
        within a group; ``research.bradley_terry.comparison_groups``)."""
        return max((p.group for p in self.preferences), default=0)

    @property
    def cgpst(self) -> bool:
        """Whether the study's rubric is CGPST's: Table 5, efficiency and diversity read its
        steps and exist only then."""
        return version_is_cgpst(self.rubric.version)


def results_compute(
    *,
    study: Any,
    rubric: Rubric,
    records: list[ScoreRecord],
    responses: list[ResponseRecord],
    pair: tuple[str, str] | None = None,
    consistency: dict | None = None,
    marks: str = MARKS_PAPER,
) -> Results:
    """Every table from the records (diversity is added by the caller, it needs the items)."""
    columns = table_columns(rubric)
    present = sorted({r.condition for r in records})
    pair = pair or default_pair(present)
    t1 = table1(records, rubric, columns)
    cgpst = version_is_cgpst(rubric.version)
    return Results(
        study=study,
        rubric=rubric,
        columns=columns,
        records=records,
        responses=responses,
        table1=t1,
        table2=table2(t1),
        overall=overall_table(records, pair=pair, conditions=present, marks=marks) if pair else None,
        blanks=blanks_table(responses) if cgpst else [],
        efficiency=efficiency_table(records) if cgpst else [],
        blank_disagreements=blank_disagreements(responses) if cgpst else [],
        step_tests=(
            step_tests(records, pair=pair, steps=[s.number for s in rubric.steps], marks=marks)
            if pair
            else []
        ),
        marks=marks,
        conditions=present,
        consistency=consistency or {},
    )


def overall_fair_add(table: OverallTable | None, fair_scores: dict[str, float]) -> None:
    """Each Table 4 row's mean fair score (beyond the study): the fair scores of the research IDs
    of its condition and model (``A05_FS10`` belongs to condition A, model 05)."""
    if table is None:
        return
    by_row: dict[str, list[float]] = defaultdict(list)
    for research_id, fair in fair_scores.items():
        by_row[research_id.split("_", 1)[0]].append(fair)
    for row in table.rows:
        values = by_row.get(f"{row.condition}{row.model_number}")
        row.fair = fmean(values) if values else None


def fmt(value: float | None, digits: int = 2) -> str:
    """Numbers as the paper prints them: up to ``digits`` decimals, no trailing zeros."""
    if value is None:
        return ""
    text = f"{value:.{digits}f}"
    if "." in text:  # no trailing zeros after the point; a whole number keeps its own (1650)
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text

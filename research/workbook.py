"""The researchers' results workbook, streamed by XlsxWriter (``constant_memory``).

Sheets: Table 1 and Table 2 per condition (the templates' two header rows with
merged step headings), the overall table with Wilcoxon tests, the per-step tests
(Figure 3), blanks from the raters (Table 5), Table 6 with CIs, warnings and
definitions, efficiency, diversity (as released and cleaned), the raw long table of
every submitted sheet, and an About sheet. No cell is a formula: numbers are numbers, everything else
is literal text (``research.workbook_cells``), with Excel's quote prefix when it looks like one.

In constant_memory mode each row goes to disk once the next row starts, so rows
are written top to bottom, and a merge is declared no later than its first row.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, partial
from itertools import groupby
from pathlib import Path
from typing import Any

from django.utils import timezone

from calibration.selectors.agreement import agreement_responses
from calibration.selectors.consistency import judge_calibrated_label
from judging.selectors.comparison import judge_comparison_get, judges_with_sheets
from judging.selectors.estimates import judge_estimates_get
from research.results import Column, ConditionTable
from research.selectors.research import Results
from research.selectors.results import RAW_HEADER, raw_score_rows_count, raw_score_rows_iter
from research.significance import MARKS_BOTH, default_pair
from research.sources import PCC_NOTE, number_sources
from research.workbook_beyond import (
    ALPHA_TITLE,
    FACETS_TITLE,
    PARTS_TITLE,
    RETEST_TITLE,
    BeyondRow,
    alpha_rows,
    facets_rows,
    parts_chart,
    parts_rows,
    retest_rows,
)
from research.workbook_cells import XLSX_OPTIONS, SafeBook, SafeSheet
from research.workbook_judge import SHEET_TITLE, judge_sheet_rows

# progress(done, total, sheet being written)
Progress = Callable[[int, int, str], None]


def _step_header(columns: list[Column], lead: int) -> tuple[list, list, list[str]]:
    """Two header rows as in the templates and the merges of the step headings."""
    top: list = [""] + [None] * (lead - 1)
    second: list = [None] * lead
    from xlsxwriter.utility import xl_col_to_name  # lazy: web processes never load XlsxWriter

    merges = [f"A1:{xl_col_to_name(lead - 1)}2"]
    start = lead + 1
    for i, col in enumerate(columns):
        index = lead + 1 + i
        last_of_step = i + 1 == len(columns) or columns[i + 1].step != col.step
        if col.step == 0:
            top.append(col.label)
            second.append(None)
            merges.append(f"{xl_col_to_name(index - 1)}1:{xl_col_to_name(index - 1)}2")
            start = index + 1
            continue
        top.append(f"Step-{col.step}" if index == start else None)
        second.append(col.label)
        if last_of_step:
            if index > start:
                merges.append(f"{xl_col_to_name(start - 1)}1:{xl_col_to_name(index - 1)}1")
            start = index + 1
    return top, second, merges


def _round(value):
    return None if value is None else round(float(value), 4)


def _header(sheet: SafeSheet, columns: list[Column], lead: int) -> None:
    top, second, merges = _step_header(columns, lead)
    for ref in merges:  # all start in row 1
        sheet.merge(ref)
    sheet.row(top, bold=True)
    sheet.row(second, bold=True)


def _table1(book: SafeBook, table: ConditionTable, columns: list[Column], label: str) -> None:
    sheet = book.sheet(f"Table 1 ({label})", header_rows=2)
    _header(sheet, columns, 2)
    for scenario, block in groupby(table.rows, key=lambda row: row.scenario):
        rows = list(block)
        if len(rows) > 1:  # one scenario cell over its models' rows
            first = sheet.next_row + 1
            sheet.merge(f"A{first}:A{first + len(rows) - 1}")
        for index, row in enumerate(rows):
            sheet.row([scenario if index == 0 else None, row.model, *(_round(v) for v in row.values)])


def _table2(book: SafeBook, table: ConditionTable, columns: list[Column], label: str) -> None:
    sheet = book.sheet(f"Table 2 ({label})", header_rows=2)
    _header(sheet, columns, 1)
    for row in table.rows:
        sheet.row([row.model, *(_round(v) for v in row.values)])


# beyond the study: Table 4's extra, labelled column (docs/researchers.md)
FAIR_HEAD = "Fair score (normalized 0-1, rater severity removed; beyond the study)"


def _overall(book: SafeBook, results: Results) -> None:
    table = results.overall
    if table is None:
        return
    a, b = table.pair
    sheet = book.sheet(f"Overall ({a} vs {b})")
    sheet.row(["Model", "Condition", *table.scenarios, "Avg", "Mark", FAIR_HEAD], bold=True)
    for row in table.rows:
        sheet.row([row.model, row.condition, *(_round(v) for v in row.scores), _round(row.average), row.mark,
                   _round(row.fair)])  # fmt: skip
    sheet.row([])
    marks = (
        "** p < 0.01, * p < 0.05 (* is our option)"
        if table.marks == MARKS_BOTH
        else "** p < 0.01 (as printed)"
    )
    sheet.row([f"Wilcoxon signed-rank test, two-sided, {a} vs {b} over scenarios; {marks}"])
    sheet.row(["Model", "n", f"Mean {a}", f"Mean {b}", "W", "p", "Mark", "Note"], bold=True)
    for t in table.tests:
        sheet.row([t.model, t.n, _round(t.mean_a), _round(t.mean_b), t.statistic, t.p_value, t.mark, t.note])


def _group_means(book: SafeBook, title: str, header: list[str], rows: list[list]) -> None:
    sheet = book.sheet(title, header_rows=1)
    sheet.row(header, bold=True)
    for row in rows:
        sheet.row(row)


def _consistency_rows(table6: dict) -> list[list]:
    selection = table6.get("selection") or {}
    rows = [
        [f"{row['metric']} ({row['form_label'] or row.get('pcc_label', '')})" if row.get("form") or row.get("pcc_label")
         else row["metric"],
         _round(row["before"]), *map(_round, row["ci_before"]), _round(row["after"]),
         *map(_round, row["ci_after"]), row["n"], row["n_responses"],
         f"not a headline: {row['warning']}" if row["warning"] else ""]
        for row in table6.get("rows", [])
    ] + [
        [],
        ["Responses", table6.get("responses")],
        ["Flagged (PCC at or below the threshold; pass only when r > threshold)", table6.get("flagged"),
         "threshold", _round(table6.get("threshold"))],
        ["Calibrated", table6.get("calibrated")],
        ["Awaiting calibration", table6.get("pending")],
        [],
        ["Definition of 'after'", table6.get("after_definition", "")],
        ["Final-score rule", table6.get("rule_label", ""), table6.get("rule_provenance", "")],
    ]  # fmt: skip
    if selection.get("n"):
        rows += [
            [],
            ["Calibrated responses only: mean PCC", None, None, None, None, None, None, selection["n"]],
            ["Original pair (rater A, rater B)", _round(selection["pair"])],
            ["Calibrator with rater A", _round(selection["calibrator_a"])],
            ["Calibrator with rater B", _round(selection["calibrator_b"])],
            ["Calibrator with each primary rater, mean", _round(selection["calibrator_mean"])],
            ["Calibrator with the closer rater (the after-PCC)", _round(selection["calibrator_closer"])],
        ]
    return rows


def _about(book: SafeBook, results: Results, names: dict[str, str]) -> None:
    about = book.sheet("About")
    title = (
        "CGPST results" if results.cgpst else f"Results ({results.rubric.title.en or results.rubric.version})"
    )
    about.row([title, results.study.name], bold=True)
    about.row(["Generated", timezone.now().isoformat(timespec="seconds")])
    about.row(["Responses with a final score", len(results.records)])
    about.row(["Conditions", ", ".join(f"{c} = {names.get(c, c)}" for c in results.conditions)])
    about.row(["Source", "final scores (FinalScore); raw table: every submitted sheet's totals"])
    about.row([])
    about.row(
        ["Where each number comes from", "", "details: docs/researchers.md, Fidelity to the study"], bold=True
    )
    for row in number_sources(study=results.study):
        about.row(row)


def _agreement(book: SafeBook, results: Results, responses: Callable[[], list[dict[str, Any]]]) -> None:
    """Per response, the PCC under both normalizations (the sheet's maxima route; the release
    script's are shown), Lin's CCC (beyond the study), the flag, the PCC after calibration and
    the final score."""
    sheet = book.sheet("PCC per response")
    sheet.row(["Research ID", "Scenario", "Condition", "Rater A", "Rater B", "PCC (sheet's maxima)", "p",
               "PCC as the release's script (Purpose / 2)", "CCC (Lin; beyond the study)", "Flagged",
               "PCC after calibration", "Final score"], bold=True)  # fmt: skip
    shown = {r.response_id for r in results.responses}
    for r in responses():
        if r["response_id"] in shown:
            sheet.row([r["research_id"], r["scenario"], r["condition"], r["rater_a"], r["rater_b"],
                       _round(r["pcc"]) if r["pcc"] is not None else r["reason"], _round(r["p_value"]),
                       _round(r["pcc_as_released"]), _round(r["ccc"]), _flagged(r),
                       _round(r["after_pcc"]),
                       _round(r["final"])])  # fmt: skip
    sheet.row([])
    sheet.row([PCC_NOTE])


def _flagged(row: dict) -> str:
    """ "yes", with the level rule's reasons when it routed the response (beyond the study)."""
    if not row["flagged"]:
        return ""
    extra = [reason for reason in row["flag_reasons"] if reason != "pcc"]
    return f"yes ({', '.join(extra)})" if extra else "yes"


def _beyond(book: SafeBook, title: str, rows: Callable[[], list[BeyondRow]]) -> None:
    """A sheet of statistics beyond the study (``research.workbook_beyond``)."""
    sheet = book.sheet(title)
    for values, bold in rows():
        sheet.row(values, bold=bold)


def _parts(book: SafeBook, study: Any) -> None:
    """Reliability by rubric part: the table, and beside it its chart."""
    sheet = book.sheet(PARTS_TITLE, header_rows=1)
    rows = parts_rows(study=study)
    for values, bold in rows:
        sheet.row(values, bold=bold)
    if len(rows) > 1:
        sheet.ws.insert_chart(
            0, len(rows[0][0]) + 1, parts_chart(book.wb, sheet=sheet.ws.name, parts=len(rows) - 1)
        )


def _labelled(book: SafeBook, write: Callable[[], None], label: str) -> None:
    write()
    assert book.last is not None  # the writer made its sheet
    book.last.row([])
    book.last.row([label], bold=True)


def _judges(book: SafeBook, results: Results, judges: list) -> None:
    sheet = book.sheet(SHEET_TITLE)
    sheet.row([SHEET_TITLE, results.study.name], bold=True)
    sheet.row(["Judge sheets are never part of the final scores, Table 6 or calibration here."])
    sheet.row([])
    for judge in judges:
        comparison = judge_comparison_get(study=results.study, judge=judge)
        estimates = judge_estimates_get(study=results.study, judge=judge, pair_rule=default_pair)
        for values, bold in judge_sheet_rows(comparison, estimates):
            sheet.row(values, bold=bold)


def _raw(book: SafeBook, results: Results, on_sheet: Callable[[int], None]) -> None:
    raw = book.sheet("Raw scores", header_rows=1)
    raw.row(list(RAW_HEADER), bold=True)
    for values in raw_score_rows_iter(study=results.study, on_sheet=on_sheet):
        raw.row(values)  # 23 rows per submitted sheet, each on disk once the next starts


def _steps(book: SafeBook, results: Results, *, names: dict[str, str]) -> list[Callable[[], None]]:
    """The sheets in order, one writer each (all but the raw table), so that the number of
    sheets is known before the first is written."""
    # read once for two sheets: the PCC per response and the alpha per unit
    agreement = cache(lambda: agreement_responses(study=results.study))
    steps: list[Callable[[], None]] = [partial(_about, book, results, names)]
    steps += [partial(_table1, book, t, results.columns, t.condition) for t in results.table1]
    steps += [partial(_table2, book, t, results.columns, t.condition) for t in results.table2]
    if results.overall is not None:
        steps.append(partial(_overall, book, results))
    steps += [
        partial(_group_means, book, "Per step (Figure 3)",
                ["Step", "Model", "n", "Mean (first condition)", "Mean (second condition)", "p", "Mark", "Note"],
                [[t.step, t.model, t.n, _round(t.mean_a), _round(t.mean_b), t.p_value, t.mark, t.note]
                 for t in results.step_tests]),
        *([partial(_group_means, book, "Blanks (Table 5)",
                ["Step", "Model", "Condition", "Mean blank items (raters)", "Responses", "Parser check",
                 "Raters disagree"],
                [[g.step, g.model, g.condition, _round(g.value), g.n, _round(g.parser), g.disagreements]
                 for g in results.blanks]
                + [[], ["Responses where the raters disagree on blanks"],
                   ["Research ID", "Step", "Raters", "Parser"]]
                + [[d.research_id, d.step, ", ".join(f"{r}: {c}" for r, c in d.counts), d.parser]
                   for d in results.blank_disagreements])]  # CGPST's Steps 1 and 3
          if results.cgpst else []),
        partial(_group_means, book, "Consistency (Table 6)",
                ["Metric", "Before calibration", "CI low", "CI high", "After calibration", "CI low", "CI high",
                 "n", "Responses", "Warning"],
                _consistency_rows(results.consistency)),
        *([partial(_group_means, book, "Preferences (Bradley-Terry)",
                ["System", "Model · condition", "Score", "CI low", "CI high", "Wins", "Losses", "Ties",
                 "Comparisons", "Group"],
                [[p.system, label, _round(p.score), _round(p.low), _round(p.high), p.wins, p.losses, p.ties,
                  p.comparisons, p.group] for p, label in results.preference_rows]
                + [[], ["Bradley-Terry scores on the Elo-like scale (1000 + 400 log10(e) beta), 95% percentile "
                        "bootstrap intervals over the pairs' final preferences; beyond the study "
                        "(docs/researchers.md). Group: systems a chain of comparisons links; a score "
                        "compares only within its group."]])]
          if results.preferences else []),
        partial(_agreement, book, results, agreement),
        partial(_beyond, book, ALPHA_TITLE, lambda: alpha_rows(study=results.study, responses=agreement())),
        partial(_parts, book, results.study),
        partial(_beyond, book, FACETS_TITLE, partial(facets_rows, study=results.study)),
        partial(_beyond, book, RETEST_TITLE, partial(retest_rows, study=results.study)),
        *([partial(_group_means, book, "Efficiency",
                ["Model", "Condition", "Step", "Metric", "Value", "Responses"],
                [[g.model, g.condition, g.step, g.metric, _round(g.value), g.n] for g in results.efficiency]),
          partial(_group_means, book, "Diversity",
                ["Model", "Condition", "Step", "Diversity (1 - mean Self-BLEU), as released",
                 "Diversity, cleaned tokens (no whitespace)", "Responses"],
                [[d.model, d.condition, d.step, _round(d.value), _round(d.cleaned), d.n]
                 for d in results.diversity])]
          if results.cgpst else []),
        partial(_group_means, book, "Generation cost",
                ["Model", "Condition", "Runs", "Succeeded", "Calls (mean)", "Tokens in (mean)",
                 "Tokens out (mean)", "Worker time s (mean)", "Failures", "Retries"],
                [[c.model, c.condition, c.runs, c.succeeded, _round(c.calls), _round(c.prompt_tokens),
                  _round(c.completion_tokens), _round(c.wall_seconds), c.failures, c.retries]
                 for c in results.cost]
                + [[], ["Per run"], ["Research ID", "Run", "Model", "Condition", "Status", "Calls", "Tokens in",
                                     "Tokens out", "Worker time s", "Failures", "Retries"]]
                + [[r.research_id, r.run_id, r.model, r.condition, r.status, r.calls, r.prompt_tokens,
                    r.completion_tokens, _round(r.wall_seconds), r.failures, r.retries]
                   for r in results.run_costs]),
    ]  # fmt: skip
    label = judge_calibrated_label(study=results.study)
    if label:  # the study's opt-in: every sheet built on final scores says so under its table
        tail = 2 if results.cgpst else 1  # Diversity (CGPST's) and Generation cost: not final scores
        steps = (
            [steps[0]] + [partial(_labelled, book, write, label) for write in steps[1:-tail]] + steps[-tail:]
        )
        steps[0] = partial(_labelled, book, steps[0], label)
    judges = judges_with_sheets(study=results.study)
    if judges:  # the sheet exists only when a judge scored responses of the study
        steps.append(partial(_judges, book, results, judges))
    return steps


class _Counter:
    """Steps done (sheets written, and each submitted sheet of the raw table) and the
    sheet being written, told to ``report`` at every step."""

    def __init__(self, report: Progress):
        self.report = report
        self.done = self.total = 0
        self.sheet = ""

    def sheet_started(self, name: str) -> None:
        self.sheet = name
        self.report(self.done, self.total, name)

    def raw_sheet_written(self, n: int) -> None:
        self.done += 1
        self.total = max(self.total, self.done + 1)  # a sheet submitted since it was counted
        self.report(self.done, self.total, self.sheet)


def results_workbook_write(
    results: Results,
    path: Path,
    *,
    condition_names: dict[str, str] | None = None,
    include_raw: bool = True,
    progress: Progress | None = None,
) -> None:
    """Write the results workbook to ``path``. ``progress(done, total, sheet)`` is told as
    each sheet starts and as each submitted sheet goes into the raw table, ``done`` rising
    by one from 0; the last call, ``(total, total, "")``, comes once the file is closed.
    ``total`` is the number of sheets plus the number of submitted sheets."""
    import xlsxwriter  # lazy: web processes never load XlsxWriter

    counter = _Counter(progress or (lambda done, total, sheet: None))
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with xlsxwriter.Workbook(str(path), XLSX_OPTIONS) as wb:
            book = SafeBook(wb, on_sheet=counter.sheet_started)
            steps = _steps(book, results, names=condition_names or {})
            if include_raw:
                steps.append(partial(_raw, book, results, counter.raw_sheet_written))
            raw_sheets = raw_score_rows_count(study=results.study) if include_raw else 0
            counter.total = len(steps) + raw_sheets
            for write in steps:
                write()
                counter.done += 1  # told with the next sheet, or once the file is closed
            book.finish()
    except BaseException:
        path.unlink(missing_ok=True)  # closing wrote what there was: no half workbook
        raise
    counter.report(counter.done, counter.done, "")

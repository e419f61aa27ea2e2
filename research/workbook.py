"""The researchers' results workbook, streamed with openpyxl's write-only mode.

Sheets: Table 1 and Table 2 per condition (the templates' two header rows with
merged step headings), the overall table with Wilcoxon tests, Step-3 blanks
(Table 5), efficiency, diversity, the raw long table of every submitted sheet,
and an About sheet. Every text cell goes through ``cells.text_cell_set``, so no
text (model names, comments, research IDs) can become a formula.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from xml.sax.saxutils import escape

from django.utils import timezone
from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.styles import Alignment, Font
from openpyxl.styles.cell_style import StyleArray
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.cell_range import CellRange

from research.results import Column, ConditionTable
from research.selectors.research import Results
from research.selectors.results import RAW_HEADER, raw_score_rows_iter
from scoring.workbooks.cells import clean_text, looks_like_formula, value_cell_set

BOLD = Font(bold=True)
CENTER = Alignment(horizontal="center", vertical="center", wrap_text=True)


class _Sheet:
    """A write-only sheet that makes every cell safe."""

    def __init__(self, wb: Workbook, title: str):
        self.ws = wb.create_sheet(title[:31])

    def row(self, values: Iterable, bold: bool = False) -> None:
        cells = []
        for value in values:
            cell = WriteOnlyCell(self.ws)
            value_cell_set(cell, value)
            if bold:
                cell.font, cell.alignment = BOLD, CENTER
            cells.append(cell)
        self.ws.append(cells)

    def merge(self, ref: str) -> None:
        self.ws.merged_cells.add(CellRange(ref))


def _step_header(columns: list[Column], lead: int) -> tuple[list, list, list[str]]:
    """Two header rows as in the templates and the merges of the step headings."""
    top: list = [""] + [None] * (lead - 1)
    second: list = [None] * lead
    merges = [f"A1:{get_column_letter(lead)}2"]
    start = lead + 1
    for i, col in enumerate(columns):
        index = lead + 1 + i
        last_of_step = i + 1 == len(columns) or columns[i + 1].step != col.step
        if col.step == 0:
            top.append(col.label)
            second.append(None)
            merges.append(f"{get_column_letter(index)}1:{get_column_letter(index)}2")
            start = index + 1
            continue
        top.append(f"Step-{col.step}" if index == start else None)
        second.append(col.label)
        if last_of_step:
            if index > start:
                merges.append(f"{get_column_letter(start)}1:{get_column_letter(index)}1")
            start = index + 1
    return top, second, merges


def _round(value):
    return None if value is None else round(float(value), 4)


def _table1(wb, table: ConditionTable, columns, label: str) -> None:
    sheet = _Sheet(wb, f"Table 1 ({label})")
    top, second, merges = _step_header(columns, 2)
    sheet.row(top, bold=True)
    sheet.row(second, bold=True)
    row_index = 3
    block_start, block_scenario = 3, None
    for row in table.rows:
        first = row.scenario != block_scenario
        if first and block_scenario is not None and row_index - 1 > block_start:
            sheet.merge(f"A{block_start}:A{row_index - 1}")
        if first:
            block_start, block_scenario = row_index, row.scenario
        sheet.row([row.scenario if first else None, row.model, *(_round(v) for v in row.values)])
        row_index += 1
    if block_scenario is not None and row_index - 1 > block_start:
        sheet.merge(f"A{block_start}:A{row_index - 1}")
    for ref in merges:
        sheet.merge(ref)


def _table2(wb, table: ConditionTable, columns, label: str) -> None:
    sheet = _Sheet(wb, f"Table 2 ({label})")
    top, second, merges = _step_header(columns, 1)
    sheet.row(top, bold=True)
    sheet.row(second, bold=True)
    for row in table.rows:
        sheet.row([row.model, *(_round(v) for v in row.values)])
    for ref in merges:
        sheet.merge(ref)


def _overall(wb, results: Results) -> None:
    table = results.overall
    if table is None:
        return
    a, b = table.pair
    sheet = _Sheet(wb, f"Overall ({a} vs {b})")
    sheet.row(["Model", "Condition", *table.scenarios, "Avg", "Mark"], bold=True)
    for row in table.rows:
        sheet.row([row.model, row.condition, *(_round(v) for v in row.scores), _round(row.average), row.mark])
    sheet.row([])
    sheet.row([f"Wilcoxon signed-rank test, two-sided, {a} vs {b} over scenarios; ** p < 0.01, * p < 0.05"])
    sheet.row(["Model", "n", f"Mean {a}", f"Mean {b}", "W", "p", "Mark", "Note"], bold=True)
    for t in table.tests:
        sheet.row([t.model, t.n, _round(t.mean_a), _round(t.mean_b), t.statistic, t.p_value, t.mark, t.note])


def _group_means(wb, title: str, header: list[str], rows: list[list]) -> None:
    sheet = _Sheet(wb, title)
    sheet.row(header, bold=True)
    for row in rows:
        sheet.row(row)


def results_workbook_write(
    results: Results,
    path: Path,
    *,
    condition_names: dict[str, str] | None = None,
    include_raw: bool = True,
    progress: Callable[[int], None] | None = None,
) -> None:
    """Write the results workbook to ``path``. ``progress(n)`` is told each raw sheet written."""
    names = condition_names or {}
    wb = Workbook(write_only=True)
    about = _Sheet(wb, "About")
    about.row(["CGPST results", results.study.name], bold=True)
    about.row(["Generated", timezone.now().isoformat(timespec="seconds")])
    about.row(["Responses with a final score", len(results.records)])
    about.row(["Conditions", ", ".join(f"{c} = {names.get(c, c)}" for c in results.conditions)])
    about.row(["Source", "final scores (FinalScore); raw table: every submitted sheet's totals"])
    for table in results.table1:
        _table1(wb, table, results.columns, table.condition)
    for table in results.table2:
        _table2(wb, table, results.columns, table.condition)
    _overall(wb, results)
    _group_means(
        wb,
        "Step-3 blanks",
        ["Model", "Condition", "Mean blank items in Step 3", "Responses"],
        [[g.model, g.condition, _round(g.value), g.n] for g in results.blanks],
    )
    table6 = results.consistency
    _group_means(
        wb,
        "Consistency (Table 6)",
        ["Metric", "Before calibration", "After calibration", "n"],
        [
            [f"{row['metric']} ({table6['headline_icc']})" if row["metric"] == "ICC" else row["metric"],
             _round(row["before"]), _round(row["after"]), row["n"]]
            for row in table6.get("rows", [])
        ]
        + [
            [],
            ["Responses", table6.get("responses")],
            ["Flagged (PCC below threshold)", table6.get("flagged"), "threshold", _round(table6.get("threshold"))],
            ["Calibrated", table6.get("calibrated")],
            ["Awaiting calibration", table6.get("pending")],
        ],
    )  # fmt: skip
    _group_means(
        wb,
        "Efficiency",
        ["Model", "Condition", "Step", "Metric", "Value", "Responses"],
        [[g.model, g.condition, g.step, g.metric, _round(g.value), g.n] for g in results.efficiency],
    )
    _group_means(
        wb,
        "Diversity",
        ["Model", "Condition", "Step", "Diversity (1 - mean Self-BLEU)", "Responses"],
        [[d.model, d.condition, d.step, _round(d.value), d.n] for d in results.diversity],
    )
    raw = None
    if include_raw:
        raw = _Sheet(wb, "Raw scores")
        raw.row(list(RAW_HEADER), bold=True)
    quoted = StyleArray()
    quoted.quotePrefix = 1
    quoted_style = wb._cell_styles.add(quoted)  # the style text_cell_set gives formula-like text
    out = io.BytesIO()
    wb.save(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw_part = raw.ws.path.lstrip("/") if raw else None
    with zipfile.ZipFile(out) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename != raw_part:
                dst.writestr(info, data)
                continue
            # the raw long table (23 rows per submitted sheet) is streamed as XML after the
            # header openpyxl wrote: building a write-only cell per value cost ~10 times more
            head, tail = data.decode("utf-8").split("</sheetData>", 1)
            with dst.open(info.filename, "w") as part:
                part.write(head.encode("utf-8"))
                rows = raw_score_rows_iter(study=results.study, on_sheet=progress)
                for chunk in _batched(_raw_rows_xml(rows, quoted_style), 2000):
                    part.write("".join(chunk).encode("utf-8"))
                part.write(("</sheetData>" + tail).encode("utf-8"))


def _batched(items: Iterable, size: int) -> Iterable[list]:
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _raw_rows_xml(rows: Iterable[tuple], quoted_style: int, first_row: int = 2) -> Iterable[str]:
    """Rows as the write-only sheet would store them: numbers as numbers, every other value as
    inline text through ``clean_text`` (quote prefix for formula-like text), None left out."""
    letters = [get_column_letter(i) for i in range(1, len(RAW_HEADER) + 1)]
    for r, values in enumerate(rows, start=first_row):
        cells = []
        for letter, value in zip(letters, values, strict=False):
            if value is None:
                continue
            if isinstance(value, int | float) and not isinstance(value, bool):
                cells.append(f'<c r="{letter}{r}" t="n"><v>{value!r}</v></c>')
                continue
            text = clean_text(value)
            if not text:
                continue
            style = f' s="{quoted_style}"' if looks_like_formula(text) else ""
            cells.append(
                f'<c r="{letter}{r}"{style} t="inlineStr"><is><t xml:space="preserve">{escape(text)}</t></is></c>'
            )
        yield f'<row r="{r}">{"".join(cells)}</row>'

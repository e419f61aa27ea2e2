"""Long tables for analysts as CSV (UTF-8, one header row, RFC 4180 quoting) or xlsx (one
sheet, streamed by XlsxWriter): read with ``pandas.read_csv``/``read_excel`` or R's
``read.csv``/``readxl`` as they are, no reshaping.

The xlsx cells are made safe as in the results workbook (text never becomes a formula;
a cell longer than Excel's limit of 32,767 characters is cut, with "…"): the CSV keeps
every text in full, but a text that a spreadsheet would read as a formula (starting with
``=``, ``+``, ``-``, ``@``, tab or carriage return) gets a leading ``'`` (``studies.csv_cells``).
Empty values are empty cells in both.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path

from research.workbook_cells import XLSX_OPTIONS, SafeBook
from studies.csv_cells import csv_cell


def long_csv_write(path: Path, header: Sequence[str], rows: Iterable[Sequence]) -> int:
    """Write the table; returns the number of data rows."""
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    try:
        with path.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow([csv_cell(v) for v in header])
            for row in rows:
                writer.writerow([csv_cell(v) for v in row])
                n += 1
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return n


def long_xlsx_write(path: Path, header: Sequence[str], rows: Iterable[Sequence], *, title: str) -> int:
    """Write the table to one sheet named ``title``; returns the number of data rows."""
    import xlsxwriter  # lazy: web processes never load XlsxWriter

    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    try:
        with xlsxwriter.Workbook(str(path), XLSX_OPTIONS) as wb:
            sheet = SafeBook(wb).sheet(title)
            sheet.row(list(header), bold=True)
            for row in rows:
                sheet.row(row)
                n += 1
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return n

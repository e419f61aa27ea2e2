"""Refuse hostile offline scoring workbooks before openpyxl loads them: the checks of
``studies.xlsx_safety`` (zip bombs, macros, external links, XML declarations, and every
worksheet's rows, columns and cells counted by streaming its XML) with the limits of a
scoring workbook: one sheet per response of a scoring group, plus the instructions, the
lists and the workbook's own record. Measured: ``bench/hostile_upload.py``.
"""

from __future__ import annotations

from django.conf import settings

from studies.xlsx_safety import XlsxLimits, xlsx_check
from studies.xlsx_safety import XlsxRefused as WorkbookRefused

__all__ = ["WorkbookRefused", "workbook_file_check", "workbook_limits"]

MAX_SHEETS = 256  # a scoring group's responses (the paper's ten models; ten times more is fine)
MAX_ROWS = 400  # a response sheet has under 100
MAX_COLUMNS = 40  # and 8 columns
CELLS_PER_SHEET = 1000  # LibreOffice saves a response sheet with about 600 cells


def workbook_limits(*, max_bytes: int | None = None) -> XlsxLimits:
    return XlsxLimits(
        max_bytes=max_bytes if max_bytes is not None else settings.DATA_UPLOAD_MAX_MEMORY_SIZE,
        max_total=64 * 1024 * 1024,
        max_part=16 * 1024 * 1024,  # shared strings: the response texts of every sheet
        max_sheet_part=2 * 1024 * 1024,  # a response sheet's XML is under 50 KB
        max_sheets=MAX_SHEETS,
        max_rows=MAX_ROWS,
        max_columns=MAX_COLUMNS,
        max_cells=CELLS_PER_SHEET * MAX_SHEETS,
    )


def workbook_file_check(data: bytes, *, max_bytes: int) -> None:
    """Raise WorkbookRefused unless ``data`` is a plain .xlsx scoring workbook within bounds."""
    xlsx_check(data, workbook_limits(max_bytes=max_bytes))

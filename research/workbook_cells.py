"""Cells the researchers' workbooks write (``research.workbook``, ``research.long_export``):
XlsxWriter streamed (``constant_memory``), each sheet's rows appended in order, every cell safe:
numbers as numbers, everything else literal text, with Excel's quote prefix where it looks like a
formula; columns as wide as their values."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from scoring.workbooks.cells import clean_text, looks_like_formula

if TYPE_CHECKING:
    import xlsxwriter

XLSX_OPTIONS = {
    "constant_memory": True,
    # should any text reach XlsxWriter's generic write() (merge_range uses it), it stays
    # text: never a formula, a hyperlink or a number
    "strings_to_formulas": False,
    "strings_to_urls": False,
    "strings_to_numbers": False,
    "nan_inf_to_errors": True,  # a statistic that is not a number is shown as an error cell
}
# short texts remembered per sheet (ids, codes, labels), and at most this many of them
SHORT_TEXT, MAX_TEXTS = 64, 100_000
_HEAD = {"bold": True, "align": "center", "valign": "vcenter", "text_wrap": True}


# Column widths in characters: what fits the values, within bounds (Excel's default is 8.43).
MIN_WIDTH, MAX_WIDTH, NUMBER_WIDTH = 6, 60, 8


class SafeBook:
    """The workbook and its four cell formats: (bold heading?, quote prefix?)."""

    def __init__(self, wb: xlsxwriter.Workbook, on_sheet: Callable[[str], None] | None = None):
        self.wb = wb
        self.on_sheet = on_sheet  # told each sheet's name as it starts
        self.last: SafeSheet | None = None  # the sheet written last
        self.formats: dict[tuple[bool, bool], Any] = {
            (False, False): None,
            (False, True): wb.add_format({"quote_prefix": True}),
            (True, False): wb.add_format(_HEAD),
            (True, True): wb.add_format({**_HEAD, "quote_prefix": True}),
        }

    def sheet(self, title: str, *, header_rows: int = 0) -> SafeSheet:
        """A new sheet; its first ``header_rows`` rows are its header: frozen, and the
        last of them carries the filters."""
        if self.last is not None:
            self.last.finish()
        ws = self.wb.add_worksheet(title[:31])
        if self.on_sheet:
            self.on_sheet(ws.name)
        self.last = SafeSheet(ws, self.formats, header_rows=header_rows)
        return self.last

    def finish(self) -> None:
        """Call once the last sheet is written."""
        if self.last is not None:
            self.last.finish()


class SafeSheet:
    """A streamed sheet that makes every cell safe; rows are appended in order."""

    def __init__(self, ws, formats: dict[tuple[bool, bool], Any], header_rows: int = 0):
        self.ws = ws
        self.formats = formats
        self.texts: dict[str, tuple[str, bool]] = {}
        self.next_row = 0  # zero-based, as XlsxWriter counts
        self.header_rows = header_rows
        self.widths: dict[int, int] = {}  # the longest value seen per column, in characters

    def finish(self) -> None:
        """Widths that fit the values (within bounds); a table's header rows frozen and
        filters on its last header row. XlsxWriter writes these at close, so they may
        come after the rows even in constant-memory mode."""
        for col, width in self.widths.items():
            self.ws.set_column(col, col, min(max(width + 2, MIN_WIDTH), MAX_WIDTH))
        if self.header_rows and self.widths:
            self.ws.freeze_panes(self.header_rows, 0)
            if self.next_row > self.header_rows:
                self.ws.autofilter(self.header_rows - 1, 0, self.next_row - 1, max(self.widths))

    def row(self, values: Iterable, bold: bool = False) -> None:
        # The raw table's 3 million cells at 10x come through here: plain numbers and texts
        # already seen take the short way, everything else ``_cell``
        r = self.next_row
        ws, widths, texts = self.ws, self.widths, self.texts
        plain = self.formats[(bold, False)]
        in_header = r < self.header_rows
        for col, value in enumerate(values):
            kind = type(value)
            if kind is float or kind is int:
                ws.write_number(r, col, value, plain)
                if widths.get(col, 0) < NUMBER_WIDTH:
                    widths[col] = NUMBER_WIDTH
                continue
            if value is None and not bold:
                continue  # an empty cell (a heading's keeps the heading's look: ``_cell``)
            found = texts.get(value) if kind is str and not in_header else None
            if found is None or not found[0]:
                self._cell(r, col, value, bold)
                continue
            text, formula = found
            if len(text) > widths.get(col, 0):
                widths[col] = len(text)
            ws.write_string(r, col, text, self.formats[(bold, formula)])
        self.next_row += 1

    def _cell(self, r: int, col: int, value: Any, bold: bool) -> None:
        if isinstance(value, int | float) and not isinstance(value, bool):
            self.ws.write_number(r, col, value, self.formats[(bold, False)])
            self._widen(col, NUMBER_WIDTH)
            return
        text, formula = ("", False) if value is None else self._text(value)  # True/False become text
        # a long note in a table's first column (a sheet's title line) does not widen it
        if text and (r >= self.header_rows or not self.header_rows or len(text) <= MAX_WIDTH):
            self._widen(col, len(text))
        if text:
            self.ws.write_string(r, col, text, self.formats[(bold, formula)])
        elif bold:
            self.ws.write_blank(r, col, None, self.formats[(True, False)])  # keep the heading's look

    def _widen(self, col: int, width: int) -> None:
        if width > self.widths.get(col, 0):
            self.widths[col] = width

    def _text(self, value: Any) -> tuple[str, bool]:
        """The cell's text and whether it looks like a formula, once per distinct short value:
        the raw table repeats the same ids, codes and labels on every row."""
        found = self.texts.get(value) if isinstance(value, str) else None
        if found is None:
            text = clean_text(value)
            found = (text, looks_like_formula(text))
            if isinstance(value, str) and len(value) <= SHORT_TEXT and len(self.texts) < MAX_TEXTS:
                self.texts[value] = found
        return found

    def merge(self, ref: str) -> None:
        """Merge ``ref`` (A1 notation); call it before writing any row below its first row.
        The first cell keeps what ``row`` writes into it."""
        self.ws.merge_range(ref, None, None)

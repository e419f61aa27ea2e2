"""Writing text into Excel cells safely.

Text from LLMs, raters or researchers never becomes a formula: a string starting
with ``= + - @`` (or a tab/CR) is stored as a plain string with Excel's quote
prefix, so Excel shows it as text and never evaluates it. Control characters that
XML cannot hold are dropped and over-long text is cut to Excel's cell limit.

``text_cell_set`` and ``value_cell_set`` fill openpyxl cells (the offline workbooks);
the results workbook applies the same rules with XlsxWriter formats (``results._Sheet``).
"""

from __future__ import annotations

from typing import Any

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
EXCEL_CELL_LIMIT = 32767


def clean_text(text: Any) -> str:
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE  # lazy: openpyxl stays out of web processes

    text = ILLEGAL_CHARACTERS_RE.sub("", str(text))
    if len(text) > EXCEL_CELL_LIMIT:
        text = text[: EXCEL_CELL_LIMIT - 1] + "…"
    return text


def looks_like_formula(text: str) -> bool:
    return text.startswith(FORMULA_PREFIXES)


def text_cell_set(cell, text: Any) -> None:
    """Put ``text`` into ``cell`` (a Cell or WriteOnlyCell) as a literal string."""
    value = clean_text(text)
    cell.value = value
    cell.data_type = "s"
    if looks_like_formula(value):
        cell.quotePrefix = True


def value_cell_set(cell, value: Any) -> None:
    """Numbers stay numbers; everything else goes in as literal text."""
    if value is None:
        cell.value = None
    elif isinstance(value, bool):
        text_cell_set(cell, str(value))
    elif isinstance(value, int | float):
        cell.value = value
    else:
        text_cell_set(cell, value)

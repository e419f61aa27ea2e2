"""Cells of the CSV files the product writes, made safe for spreadsheets (pure: no database).

A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return would be
read as a formula by Excel, LibreOffice or Google Sheets (CSV "formula injection": a rater's
comment ``=HYPERLINK(...)`` or ``=cmd|' /C calc'!A0`` runs on the analyst's machine). OWASP's
rule: such a cell gets a leading single quote, which shows it as the text it is; so does one
whose first character after leading spaces or line breaks is such a character (some
spreadsheets trim a cell before reading it). Numbers stay numbers (a score of -1 is written
-1), only text is changed.
"""

from __future__ import annotations

from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """The value to write in a CSV cell: ``None`` as an empty cell, text neutralised."""
    if value is None:
        return ""
    if isinstance(value, str) and (
        value.startswith(FORMULA_STARTS) or value.lstrip(" \n\r\t\f\v").startswith(FORMULA_STARTS)
    ):
        return "'" + value
    return value

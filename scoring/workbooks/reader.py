"""Read a filled offline scoring workbook back into entry changes.

Pure apart from openpyxl: no ORM. Checks the workbook's structure (sheet names
and order, fixed labels, formulas, the response code on each sheet, sheet sizes)
and every value the rater entered, with the same validation the web form uses
(``scoring.entries``), and returns either the changes of every sheet or every
problem with its sheet and cell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any

from django.utils.translation import gettext as _

from scoring.entries import EntryError, entries_from_changes
from studies.rubric import RubricError, load_rubric, sheet_totals

from .layout import FORMAT, sheet_layout
from .safety import WorkbookRefused
from .vocab import category_from_cell, classification_value, invalid_from_cell
from .writer import CGPST_TASK, INSTRUCTIONS, LISTS, META, TASK_KEY, TEXT_TASKS

BLIND_RE = re.compile(r"^[A-Z0-9]{4,16}$")


@dataclass(frozen=True)
class Problem:
    sheet: str
    cell: str
    message: str

    def __str__(self) -> str:
        where = f"{self.sheet}!{self.cell}" if self.cell else self.sheet
        return f"{where}: {self.message}" if where else self.message


@dataclass
class WorkbookMeta:
    rater: str
    scenario: str
    rubric: str
    lang: str
    token: str
    sheets: list[tuple[str, int]] = field(default_factory=list)
    task: str = CGPST_TASK  # a single-text or pairwise study's workbook (its sheets' own layout)

    @property
    def blind_codes(self) -> list[str]:
        return [code for code, _ in self.sheets]


@dataclass
class ParsedSheet:
    blind_code: str
    changes: list[tuple[str, Any]]
    cells: dict[str, str]  # entry path -> cell, for messages about stored values


def meta_read(wb) -> WorkbookMeta:
    """The workbook's hidden Meta sheet; WorkbookRefused if it is missing or garbled."""
    if META not in wb.sheetnames:
        raise WorkbookRefused(
            _("This is not an offline scoring workbook from this platform (its signature sheet is missing).")
        )
    ws = wb[META]
    values: dict[str, str] = {}
    sheets: list[tuple[str, int]] = []
    for key, value in ws.iter_rows(min_row=1, max_col=2, values_only=True):
        if not isinstance(key, str):
            continue
        if key.startswith("sheet."):
            try:
                sheets.append((key.removeprefix("sheet."), int(value)))
            except (TypeError, ValueError) as exc:
                raise WorkbookRefused(_("The workbook's signature sheet was altered.")) from exc
        else:
            values[key] = "" if value is None else str(value)
    if values.get("format") != FORMAT:
        raise WorkbookRefused(_("This workbook has an unknown format; download a fresh workbook."))
    meta = WorkbookMeta(
        rater=values.get("rater", ""),
        scenario=values.get("scenario", ""),
        rubric=values.get("rubric", ""),
        lang=values.get("language", "en"),
        token=values.get("token", ""),
        sheets=sheets,
        task=values.get(TASK_KEY, CGPST_TASK),
    )
    task_altered = meta.task != CGPST_TASK and meta.task not in TEXT_TASKS  # absent: a CGPST study's
    if (
        task_altered
        or not meta.token
        or not meta.sheets
        or not all(BLIND_RE.match(c) for c in meta.blind_codes)
    ):
        raise WorkbookRefused(_("The workbook's signature sheet was altered."))
    try:
        load_rubric(meta.rubric)
    except RubricError as exc:
        raise WorkbookRefused(_("The workbook names an unknown rubric version.")) from exc
    return meta


def _norm_formula(text: Any) -> str:
    return re.sub(r"\s+", "", str(text or "")).upper().replace("_XLFN.", "")


def structure_problems(wb, meta: WorkbookMeta) -> list[Problem]:
    """Sheets renamed, added, removed or reordered; labels or formulas changed."""
    expected = [INSTRUCTIONS, *meta.blind_codes, LISTS, META]
    if list(wb.sheetnames) != expected:
        found = set(wb.sheetnames)
        problems: list[Problem] = [
            Problem(code, "", _("This sheet is missing or was renamed."))
            for code in meta.blind_codes
            if code not in found
        ]
        problems += [
            Problem(name, "", _("This sheet does not belong to the workbook (added or renamed)."))
            for name in wb.sheetnames
            if name not in expected
        ]
        if not problems:
            problems.append(
                Problem("", "", _("The sheets were reordered; keep the order of the downloaded workbook."))
            )
        return problems
    lay = sheet_layout(meta.rubric, meta.lang, task=meta.task)
    problems = []
    for code in meta.blind_codes:
        ws = wb[code]  # its size was checked before the workbook was loaded (safety.workbook_file_check)
        if str(ws[lay.slot("blind")].value or "") != code:
            problems.append(
                Problem(code, lay.slot("blind"), _("The response code of this sheet was changed."))
            )
        changed = [c for c, text in lay.labels.items() if str(ws[c].value or "") != text]
        changed += [
            c
            for c, formula in lay.formulas.items()
            if ws[c].data_type != "f" or _norm_formula(ws[c].value) != _norm_formula(formula)
        ]
        if changed:
            shown = ", ".join(changed[:5]) + (" …" if len(changed) > 5 else "")
            problems.append(
                Problem(
                    code,
                    changed[0],
                    _("The layout of this sheet was changed (cells %(cells)s); download a fresh workbook.")
                    % {"cells": shown},
                )
            )
    return problems


def _raw(ws, coord: str) -> Any:
    cell = ws[coord]
    if cell.data_type == "f":
        raise EntryError(coord, _("This cell contains a formula; type the value itself."))
    value = cell.value
    if isinstance(value, str):
        value = value.strip()
        return value or None
    if isinstance(value, datetime | date | time):
        raise EntryError(coord, _("Expected a score or text, not a date."))
    return value


def sheet_read(ws, meta: WorkbookMeta) -> tuple[ParsedSheet, list[Problem]]:
    """The changes that reproduce this sheet, validated as the web form validates them;
    incomplete sheets are problems too (every sheet is submitted)."""
    rubric = load_rubric(meta.rubric)
    lay = sheet_layout(meta.rubric, meta.lang, task=meta.task)
    by_path = lay.input_by_path
    problems: list[Problem] = []
    raw: dict[str, Any] = {}
    for inp in lay.inputs:
        try:
            value = _raw(ws, inp.coord)
        except EntryError as exc:
            problems.append(Problem(ws.title, inp.coord, exc.message))
            continue
        if inp.kind == "text" and value is not None and not isinstance(value, str):
            value = str(value)
        raw[inp.path] = value

    changes: list[tuple[str, Any]] = []
    cells: dict[str, str] = {}
    bad_rows: set[str] = set()
    for inp in lay.inputs:
        path = inp.path
        if inp.kind == "invalid":
            continue
        if inp.kind == "category":
            base = path.removesuffix(".category")
            cat_text, inv_text = raw.get(path), raw.get(f"{base}.invalid")
            cat = category_from_cell(rubric, str(cat_text)) if cat_text is not None else None
            inv = invalid_from_cell(rubric, inp.step, str(inv_text)) if inv_text is not None else None
            bad = False
            if cat_text is not None and cat is None:
                problems.append(
                    Problem(ws.title, inp.coord, _("Unknown category “%(v)s”.") % {"v": cat_text})
                )
                bad = True
            if inv_text is not None and inv is None:
                coord = by_path[f"{base}.invalid"].coord
                problems.append(
                    Problem(ws.title, coord, _("Unknown invalid type “%(v)s”.") % {"v": inv_text})
                )
                bad = True
            if cat and inv:
                problems.append(
                    Problem(ws.title, inp.coord, _("Choose a category or an invalid type, not both."))
                )
                bad = True
            if bad:
                bad_rows.add(base)  # its scores would only repeat the problem ("only Yes items")
                continue
            entry_path = f"{base}.classification"
            changes.append((entry_path, classification_value(cat, inv)))
            cells[entry_path] = inp.coord
            continue
        if inp.kind == "score" and path.rsplit(".", 1)[0] in bad_rows:
            continue
        if path in raw:
            changes.append(
                (path, raw[path] if raw[path] is not None else ("" if inp.kind == "text" else None))
            )
            cells[path] = inp.coord

    refused: list[EntryError] = []
    entries = entries_from_changes(changes, rubric, errors=refused)
    problems.extend(Problem(ws.title, cells.get(exc.path, ""), exc.message) for exc in refused)
    # empty required cells too, in the same pass (a cell already named above is not named twice)
    named = {p.cell for p in problems if p.cell}
    for missing in sheet_totals(entries, rubric).missing:
        path = missing.path.replace(".classification", ".category")
        coord = by_path[path].coord if path in by_path else ""
        invalid = by_path.get(path.removesuffix(".category") + ".invalid")
        related = {coord, invalid.coord} if invalid and path.endswith(".category") else {coord}
        if named & related:
            continue
        problems.append(
            Problem(ws.title, coord, _("This cell needs a value before the sheet can be submitted."))
        )
    return ParsedSheet(ws.title, changes, cells), problems


def workbook_read(wb, meta: WorkbookMeta) -> tuple[list[ParsedSheet], list[Problem]]:
    problems = structure_problems(wb, meta)
    if problems:
        return [], problems
    parsed: list[ParsedSheet] = []
    for code in meta.blind_codes:
        sheet, found = sheet_read(wb[code], meta)
        parsed.append(sheet)
        problems += found
    return parsed, problems

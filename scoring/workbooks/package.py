"""An offline scoring workbook (.xlsx) from its content, written by openpyxl.

Every response sheet of a rubric version and language has the same cells at the
same places; which cell holds what and in which style is worked out once per
process (``_sheet_plan``), so writing a sheet is only creating its cells. Every
part of the file is openpyxl's own.

Not write-only mode: a workbook (a scoring group's sheets) is returned as bytes
anyway, and write-only mode's temporary file per sheet made it slower. ``workbooks_zip_write`` still handles one workbook at a time.
"""

from __future__ import annotations

import io
import secrets
from dataclasses import dataclass
from functools import lru_cache

from studies.rubric import load_rubric

from .layout import sheet_layout
from .writer import (
    INSTRUCTIONS,
    LISTS,
    META,
    SheetContent,
    WorkbookContent,
    cell_new,
    formula_cell,
    instructions_write,
    lists_write,
    meta_write,
    response_sheet_setup,
    row_height,
    styles_add,
)


@dataclass(frozen=True)
class _Cell:
    column: int  # 1-based
    kind: str  # label | formula | slot | input
    style: str
    payload: str  # the label's text, the formula, the slot's name or the input's path


@dataclass(frozen=True)
class _Row:
    number: int
    height: float | None  # a fixed height (dimension level texts)
    height_slot: tuple[str, int] | None  # or one from a slot's text: (slot name, characters per line)
    cells: tuple[_Cell, ...]


@lru_cache(maxsize=16)
def _sheet_plan(rubric_version: str, lang: str, task: str) -> tuple[_Row, ...]:
    """The cells of a response sheet row by row, in column order, with their styles."""
    from openpyxl.utils.cell import column_index_from_string, coordinate_from_string  # lazy (web)

    lay = sheet_layout(rubric_version, lang, task=task)
    section = set(lay.section_rows)
    cells: dict[tuple[int, int], _Cell] = {}

    def put(coord: str, kind: str, style: str, payload: str) -> None:
        letter, row = coordinate_from_string(coord)
        col = column_index_from_string(letter)
        cells[(row, col)] = _Cell(col, kind, style, payload)

    for coord, text in lay.labels.items():
        row = coordinate_from_string(coord)[1]
        if row in section or row == 1:
            style = "section"
        elif coord.startswith("A") or lay.row_kinds.get(row) == "colhead":
            style = "label"
        else:
            style = "plain"
        put(coord, "label", style, text)
    slot_heights: dict[int, tuple[str, int]] = {}
    for slot in lay.slots:
        row = coordinate_from_string(slot.coord)[1]
        if slot.name.startswith("answer.") or slot.name == "text":
            slot_heights[row] = (slot.name, 150)
        elif slot.name.startswith("item.") or slot.name == "checks":
            slot_heights[row] = (slot.name, 60)
        put(slot.coord, "slot", "plain", slot.name)
    for coord, formula in lay.formulas.items():
        put(coord, "formula", "formula", formula)
    for inp in lay.inputs:
        put(inp.coord, "input", "input_text" if inp.kind == "text" else "input_choice", inp.path)
    heights = {
        row: row_height(lay.labels[f"B{row}"], 120) for row, kind in lay.row_kinds.items() if kind == "levels"
    }
    by_row: dict[int, list[_Cell]] = {}
    for (row, _col), cell in sorted(cells.items()):
        by_row.setdefault(row, []).append(cell)
    return tuple(
        _Row(n, heights.get(n), slot_heights.get(n), tuple(by_row.get(n, ())))
        for n in range(1, lay.max_row + 1)
    )


def _slot_value(*, content: WorkbookContent, sheet: SheetContent, name: str) -> str:
    if name.startswith("answer."):
        return sheet.answers[int(name.split(".")[1]) - 1]
    if name == "text":  # a single-text response's one text (a pair's text A), its first answer
        return sheet.answers[0]
    if name == "text.b":  # a pair's text B, its second answer
        return sheet.answers[1]
    if name.startswith("item."):
        _, step, pos = name.split(".")
        texts = sheet.items.get(int(step), [])
        return texts[int(pos) - 1] if int(pos) <= len(texts) else ""
    return {
        "rater": content.rater_label,
        "scenario": content.scenario_code,
        "blind": sheet.blind_code,
        "grid_hint": sheet.grid_hint,
        "checks": sheet.check_hints or "—",
    }[name]


def _response_sheet_write(ws, *, content: WorkbookContent, sheet: SheetContent) -> None:
    """One response sheet's cells (about 330), appended row by row."""
    for plan in _sheet_plan(content.rubric_version, content.lang, content.task):
        height = plan.height
        if plan.height_slot:
            name, chars_per_line = plan.height_slot
            height = row_height(_slot_value(content=content, sheet=sheet, name=name), chars_per_line)
        if height:
            ws.row_dimensions[plan.number].height = height
        row: list = [None] * (plan.cells[-1].column if plan.cells else 0)
        for cell in plan.cells:
            if cell.kind == "formula":
                row[cell.column - 1] = formula_cell(ws, formula=cell.payload, style=cell.style)
                continue
            value: object
            if cell.kind == "label":
                value = cell.payload
            elif cell.kind == "slot":
                value = _slot_value(content=content, sheet=sheet, name=cell.payload)
            else:
                value = sheet.values.get(cell.payload)
            row[cell.column - 1] = cell_new(ws, value=value, style=cell.style)
        ws.append(row)


def workbook_bytes(content: WorkbookContent) -> bytes:
    """The .xlsx file for ``content``: Instructions, one sheet per response, Lists and Meta
    (both very hidden); every sheet and the structure protected."""
    from openpyxl import Workbook  # lazy: openpyxl stays out of web processes
    from openpyxl.workbook.protection import WorkbookProtection

    hidden_password = secrets.token_urlsafe(12)  # nobody needs to unprotect these
    wb = Workbook()
    styles_add(wb)
    instructions = wb.active
    instructions.title = INSTRUCTIONS
    instructions.protection.sheet = True
    instructions.protection.password = hidden_password
    instructions_write(instructions, rubric=load_rubric(content.rubric_version))
    for sheet in content.sheets:
        ws = wb.create_sheet(sheet.blind_code)
        response_sheet_setup(ws, content=content)
        _response_sheet_write(ws, content=content, sheet=sheet)
    lists = wb.create_sheet(LISTS)
    lists_write(lists, content=content)
    meta = wb.create_sheet(META)
    meta_write(meta, content=content)
    for hidden in (lists, meta):
        hidden.sheet_state = "veryHidden"
        hidden.protection.sheet = True
        hidden.protection.password = hidden_password

    wb.security = WorkbookProtection(workbookPassword=hidden_password, lockStructure=True)
    wb.properties.creator = "teamllm-web"
    wb.properties.title = f"{content.rater_label}_{content.scenario_code}"
    wb.calculation.fullCalcOnLoad = True  # Excel and LibreOffice compute every total on opening
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()

"""Build an offline scoring workbook (openpyxl) from plain data.

Sheets: ``Instructions`` (English and Chinese), one sheet per response named by
its blind code (laid out by ``layout.sheet_layout``), and two very hidden,
protected sheets: ``Lists`` (dropdown values) and ``Meta`` (format, rater,
scenario, the sheets with the version each had at export, and an HMAC token over
them). Only the rater's cells are unlocked; the workbook structure is locked.
"""

from __future__ import annotations

import io
import math
import secrets
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from openpyxl import Workbook
from openpyxl.styles import Alignment, Border, Font, PatternFill, Protection, Side
from openpyxl.workbook.protection import WorkbookProtection
from openpyxl.worksheet.datavalidation import DataValidation

from scoring.rubric import load_rubric

from .cells import text_cell_set, value_cell_set
from .layout import COLUMN_WIDTHS, FORMAT, sheet_layout
from .vocab import category_options, invalid_options

INSTRUCTIONS = "Instructions"
LISTS = "Lists"
META = "Meta"

INSTRUCTIONS_EN = [
    "CGPST offline scoring workbook",
    "",
    "1. Each worksheet (named by the response's code) is one response. Score every sheet of this workbook.",
    "2. Fill in only the yellow cells. Everything else is protected; every total is computed by the sheet.",
    "3. Steps 1 and 3: for each item choose EITHER a category (a valid 'Yes' item) OR an invalid type "
    "(Perhaps, Why, Solution, Duplicate, Blank). Only Yes items get Elaboration and Originality (0-2).",
    "4. Step 2: copy the Condition Phrase, Stem, Key Verb Phrase and Purpose from the response, then score "
    "the six dimensions. Step 4: Correctly written (0-1) and Relevance (0-3) for each criterion. Step 5: "
    "Correctly used (1-5). Step 6: the six action-plan dimensions.",
    "5. Use the dropdowns; a value out of range is refused. Do not type formulas into cells.",
    "6. Do not rename, add, delete or reorder sheets, and keep the file name: the workbook is signed and "
    "checked when you upload it.",
    "7. When every sheet is complete, upload the workbook on the platform (My queue > Offline workbooks). "
    "All sheets are stored and submitted together, or nothing is stored and every problem is listed "
    "with its sheet and cell.",
]
INSTRUCTIONS_ZH = [
    "CGPST 离线评分工作簿",
    "",
    "1. 每个工作表（以回答编号命名）对应一个回答。请为本工作簿中的每个工作表评分。",
    "2. 只填写黄色单元格。其他单元格均受保护；所有总分由表格自动计算。",
    "3. 第一步和第三步：每一项要么选择一个类别（有效的“是”项），要么选择一种无效类型"
    "（可能、为何、方案、重复、空白）。只有“是”项才评精致性和独创性（0-2 分）。",
    "4. 第二步：从回答中摘录条件短语、题干、关键动词短语和目的，然后为六个维度评分。"
    "第四步：每条标准评“书写正确”（0-1）和“相关性”（0-3）。第五步：正确使用（1-5）。第六步：行动计划的六个维度。",
    "5. 请使用下拉列表；超出范围的值会被拒绝。请勿在单元格中输入公式。",
    "6. 请勿重命名、添加、删除或调整工作表顺序，也请保留文件名：工作簿带有签名，上传时会被核验。",
    "7. 全部工作表完成后，在平台上传本工作簿（我的队列 > 离线工作簿）。"
    "所有工作表将一起保存并提交；否则不保存任何内容，并列出每个问题所在的工作表和单元格。",
]


@dataclass
class SheetContent:
    blind_code: str
    answers: list[str]
    items: dict[int, list[str]]
    grid_hint: str
    values: dict[str, Any] = field(default_factory=dict)  # input path -> pre-filled value
    version: int = 0


@dataclass
class WorkbookContent:
    rater_label: str
    scenario_code: str
    scenario_theme: str
    lang: str
    rubric_version: str
    sheets: list[SheetContent]
    token: str = ""


_THIN = Side(style="thin", color="7F7F7F")
BORDER = Border(left=_THIN, right=_THIN, top=_THIN, bottom=_THIN)
WRAP = Alignment(wrap_text=True, vertical="top")
CENTER = Alignment(wrap_text=True, vertical="center", horizontal="center")
FILL_INPUT = PatternFill("solid", fgColor="FFF2CC")
FILL_TOTAL = PatternFill("solid", fgColor="FFD966")
FILL_LABEL = PatternFill("solid", fgColor="DDEBF7")
FILL_SECTION = PatternFill("solid", fgColor="000000")
FONT_SECTION = Font(bold=True, color="FFFFFF")
FONT_BOLD = Font(bold=True)
UNLOCKED = Protection(locked=False)


def _display_width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _row_height(text: str, chars_per_line: int) -> float:
    lines = sum(max(1, math.ceil(_display_width(line) / chars_per_line)) for line in str(text).split("\n"))
    return min(409.0, max(15.0, 15.0 * lines))


def _instructions(ws) -> None:
    ws.column_dimensions["A"].width = 120
    for row, text in enumerate(INSTRUCTIONS_EN + [""] + INSTRUCTIONS_ZH, start=1):
        cell = ws.cell(row=row, column=1)
        text_cell_set(cell, text)
        cell.alignment = WRAP
        if row in (1, len(INSTRUCTIONS_EN) + 2):
            cell.font = FONT_BOLD


def _response_sheet(ws, content: WorkbookContent, sheet: SheetContent, list_refs: dict) -> None:
    lay = sheet_layout(content.rubric_version, content.lang)
    for col, width in COLUMN_WIDTHS.items():
        ws.column_dimensions[col].width = width
    ws.column_dimensions["H"].hidden = True
    section = set(lay.section_rows)
    for coord, text in lay.labels.items():
        cell = ws[coord]
        text_cell_set(cell, text)
        row = cell.row
        if row in section or row == 1:
            cell.fill, cell.font, cell.alignment = FILL_SECTION, FONT_SECTION, CENTER
        elif cell.column == 1 or lay.row_kinds.get(row) == "colhead":
            cell.fill, cell.alignment, cell.border = FILL_LABEL, CENTER, BORDER
        else:
            cell.alignment, cell.border = WRAP, BORDER
    slots = {
        "rater": content.rater_label,
        "scenario": content.scenario_code,
        "blind": sheet.blind_code,
        "grid_hint": sheet.grid_hint,
    }
    for slot in lay.slots:
        if slot.name.startswith("answer."):
            value = sheet.answers[int(slot.name.split(".")[1]) - 1]
        elif slot.name.startswith("item."):
            _, step, pos = slot.name.split(".")
            texts = sheet.items.get(int(step), [])
            value = texts[int(pos) - 1] if int(pos) <= len(texts) else ""
        else:
            value = slots[slot.name]
        cell = ws[slot.coord]
        text_cell_set(cell, value)
        cell.alignment, cell.border = WRAP, BORDER
        if slot.name.startswith("answer."):
            ws.row_dimensions[cell.row].height = _row_height(value, 150)
        elif slot.name.startswith("item."):
            ws.row_dimensions[cell.row].height = _row_height(value, 60)
    for coord, formula in lay.formulas.items():
        cell = ws[coord]
        cell.value = formula
        cell.fill, cell.border, cell.alignment = FILL_TOTAL, BORDER, CENTER
    for row, kind in lay.row_kinds.items():
        if kind == "levels":
            ws.row_dimensions[row].height = _row_height(lay.labels[f"B{row}"], 120)
    validations: dict[tuple, DataValidation] = {}
    for inp in lay.inputs:
        cell = ws[inp.coord]
        value_cell_set(cell, sheet.values.get(inp.path))
        cell.protection, cell.fill, cell.border = UNLOCKED, FILL_INPUT, BORDER
        cell.alignment = WRAP if inp.kind == "text" else CENTER
        if inp.kind == "text":
            continue
        key = (inp.kind, inp.step if inp.kind == "invalid" else 0, inp.lo, inp.hi)
        dv = validations.get(key)
        if dv is None:
            if inp.kind == "score":
                formula = '"' + ",".join(str(v) for v in range(inp.lo, inp.hi + 1)) + '"'
            else:
                formula = list_refs[key[:2]]
            dv = DataValidation(
                type="list",
                formula1=formula,
                allow_blank=True,
                showErrorMessage=True,
                errorTitle="CGPST",
                error="Choose a value from the list. 请从列表中选择。",
            )
            validations[key] = dv
            ws.add_data_validation(dv)
        dv.add(inp.coord)
    for rng in lay.merges:
        ws.merge_cells(rng)
    ws.freeze_panes = "A3"
    ws.protection.sheet = True
    ws.protection.password = secrets.token_urlsafe(12)
    ws.protection.formatColumns = False
    ws.protection.formatRows = False


def _lists(ws, content: WorkbookContent) -> dict:
    rubric = load_rubric(content.rubric_version)
    refs: dict[tuple, str] = {}
    columns = [(("category", 0), category_options(rubric, content.lang))]
    columns += [
        (("invalid", s.number), invalid_options(rubric, s.number, content.lang))
        for s in rubric.steps
        if s.kind == "ideas"
    ]
    for col, (key, options) in enumerate(columns, start=1):
        letter = ws.cell(row=1, column=col).column_letter
        for row, option in enumerate(options, start=1):
            text_cell_set(ws.cell(row=row, column=col), option)
        refs[key] = f"{LISTS}!${letter}$1:${letter}${len(options)}"
    return refs


def meta_rows(content: WorkbookContent) -> list[tuple[str, str]]:
    rows = [
        ("format", FORMAT),
        ("rater", content.rater_label),
        ("scenario", content.scenario_code),
        ("rubric", content.rubric_version),
        ("language", content.lang),
        ("token", content.token),
    ]
    rows += [(f"sheet.{s.blind_code}", str(s.version)) for s in content.sheets]
    return rows


def workbook_bytes(content: WorkbookContent) -> bytes:
    """The .xlsx file for ``content``."""
    wb = Workbook()
    ws = wb.active
    ws.title = INSTRUCTIONS
    _instructions(ws)
    lists = wb.create_sheet(LISTS)
    list_refs = _lists(lists, content)
    for sheet in content.sheets:
        _response_sheet(wb.create_sheet(sheet.blind_code), content, sheet, list_refs)
    wb.move_sheet(LISTS, offset=len(content.sheets))
    meta = wb.create_sheet(META)
    for row, (key, value) in enumerate(meta_rows(content), start=1):
        text_cell_set(meta.cell(row=row, column=1), key)
        text_cell_set(meta.cell(row=row, column=2), value)
    password = secrets.token_urlsafe(12)
    for hidden in (lists, meta):
        hidden.sheet_state = "veryHidden"
        hidden.protection.sheet = True
        hidden.protection.password = password
    ws.protection.sheet = True
    ws.protection.password = password
    wb.security = WorkbookProtection(workbookPassword=password, lockStructure=True)
    wb.properties.creator = "teamllm-web"
    wb.properties.title = f"{content.rater_label}_{content.scenario_code}"
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()

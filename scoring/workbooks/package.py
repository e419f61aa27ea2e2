"""Assembling an offline scoring workbook (.xlsx) from its parts.

Every workbook of a rubric version and language has the same styles, theme,
Instructions, Lists and response-sheet structure (columns, merges, dropdowns,
protection); only the sheet names, the cell values, the Meta rows, the
passwords and the title differ. openpyxl builds those shared parts once per
process (``_skeleton``); each export then writes its own parts as XML and
zips them with the shared ones, instead of building and saving a whole
openpyxl workbook per rater and group.
"""

from __future__ import annotations

import io
import re
import secrets
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from xml.sax.saxutils import escape

from openpyxl import Workbook
from openpyxl.styles.cell_style import StyleArray
from openpyxl.utils.cell import column_index_from_string, coordinate_from_string
from openpyxl.utils.protection import hash_password
from openpyxl.workbook.protection import WorkbookProtection

from .cells import clean_text, looks_like_formula
from .layout import sheet_layout
from .writer import (
    INSTRUCTIONS,
    LISTS,
    META,
    SheetContent,
    WorkbookContent,
    _instructions,
    _lists,
    _response_sheet,
    _row_height,
    _style_arrays,
    _style_ids,
    meta_rows,
)

_PLACEHOLDER = "teamllm-skeleton"
_TITLE_MARK = "@@title@@"
_WORKSHEET_TYPE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet"
_WORKSHEET_CONTENT = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
_SHEET_DATA = re.compile(r"<sheetData\s*/>|<sheetData>.*?</sheetData>", re.S)
_DIMENSION = re.compile(r'<dimension ref="[^"]*"\s*/>')
_SHEETS = re.compile(r"<sheets>.*?</sheets>", re.S)
_RELATIONSHIP = re.compile(r"<Relationship\b[^>]*/>")
_WORKSHEET_OVERRIDE = re.compile(r'<Override PartName="/xl/worksheets/[^"]*"[^>]*/>')
_STAMP = re.compile(r"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:)")


def _attr(text: str) -> str:
    return escape(text, {'"': "&quot;"})


def _text_cell(coord: str, value, sid: int, quoted: int) -> str:
    """A text cell as ``text_cell_set`` would write it (quote prefix for formula-like text)."""
    text = clean_text(value)
    if not text:
        return f'<c r="{coord}" s="{sid}"/>'
    sid = quoted if looks_like_formula(text) else sid
    return f'<c r="{coord}" s="{sid}" t="inlineStr"><is><t xml:space="preserve">{escape(text)}</t></is></c>'


def _value_cell(coord: str, value, sid: int, quoted: int) -> str:
    """Numbers stay numbers; anything else is text."""
    if value is None or value == "":
        return f'<c r="{coord}" s="{sid}"/>'
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f'<c r="{coord}" s="{sid}"><v>{value}</v></c>'
    return _text_cell(coord, value, sid, quoted)


def _coord_key(coord: str) -> tuple[int, int]:
    col, row = coordinate_from_string(coord)
    return row, column_index_from_string(col)


@dataclass(frozen=True)
class _Skeleton:
    """The parts every workbook of one rubric version and language shares."""

    parts: dict[str, bytes]  # styles, theme, app.xml, package rels (unchanged)
    instructions: str  # sheet XML, protected by the placeholder password
    lists: str
    response_head: str  # a response sheet's XML before <sheetData>
    response_tail: str  # and after </sheetData> (merges, dropdowns, protection)
    meta_head: str
    meta_tail: str
    workbook: str
    workbook_rels: str
    content_types: str
    core: str
    placeholder_hash: str
    # the response sheet's <sheetData>: row by row, fixed XML and the cells each sheet fills in
    rows: tuple[tuple[int, float | None, tuple], ...]
    quoted_text: int  # cellXfs index of plain text with Excel's quote prefix (Meta)


def _sheet_rows(rubric_version: str, lang: str, ids: dict[str, int]) -> tuple:
    """The cells of a response sheet, per row in column order: fixed XML for labels and
    formulas, and ``(kind, coord, key, sid, quoted sid)`` for the slots and inputs."""
    lay = sheet_layout(rubric_version, lang)
    cells: dict[tuple[int, int], str | tuple] = {}
    section = set(lay.section_rows)
    for coord, text in lay.labels.items():
        row = int(coord.lstrip("ABCDEFGH"))
        if row in section or row == 1:
            style = "section"
        elif coord.startswith("A") or lay.row_kinds.get(row) == "colhead":
            style = "label"
        else:
            style = "plain"
        cells[_coord_key(coord)] = _text_cell(coord, text, ids[style], ids[style + "+q"])
    heights: dict[int, float | tuple] = {}
    for slot in lay.slots:
        row = int(slot.coord.lstrip("ABCDEFGH"))
        if slot.name.startswith("answer."):
            heights[row] = (slot.name, 150)
        elif slot.name.startswith("item."):
            heights[row] = (slot.name, 60)
        cells[_coord_key(slot.coord)] = ("slot", slot.coord, slot.name, ids["plain"], ids["plain+q"])
    for coord, formula in lay.formulas.items():
        cells[_coord_key(coord)] = (
            f'<c r="{coord}" s="{ids["formula"]}"><f>{escape(formula.removeprefix("="))}</f></c>'
        )
    for row, kind in lay.row_kinds.items():
        if kind == "levels":
            heights[row] = _row_height(lay.labels[f"B{row}"], 120)
    for inp in lay.inputs:
        style = "input_text" if inp.kind == "text" else "input_choice"
        cells[_coord_key(inp.coord)] = ("input", inp.coord, inp.path, ids[style], ids[style + "+q"])
    rows: dict[int, list] = {}
    for (row, _col), cell in sorted(cells.items()):
        rows.setdefault(row, []).append(cell)
    return tuple((row, heights.get(row), tuple(rows[row])) for row in sorted(rows))


def _split_sheet(xml: str) -> tuple[str, str]:
    match = _SHEET_DATA.search(xml)
    return xml[: match.start()], xml[match.end() :]


@lru_cache(maxsize=8)
def _skeleton(rubric_version: str, lang: str) -> _Skeleton:
    content = WorkbookContent(
        rater_label="",
        scenario_code="",
        scenario_theme="",
        lang=lang,
        rubric_version=rubric_version,
        sheets=[],
        token=_PLACEHOLDER,
    )
    wb = Workbook()
    instructions = wb.active
    instructions.title = INSTRUCTIONS
    _instructions(instructions)
    lists = wb.create_sheet(LISTS)
    list_refs = _lists(lists, content)
    ids = _style_ids(wb, _style_arrays(wb))
    quoted = StyleArray()
    quoted.quotePrefix = 1
    quoted_text = wb._cell_styles.add(quoted)
    response = wb.create_sheet("R")
    _response_sheet(response, content, list_refs)  # protected with the placeholder (token[:16])
    meta = wb.create_sheet(META)
    for sheet in (instructions, lists, meta):
        sheet.protection.sheet = True
        sheet.protection.password = _PLACEHOLDER[:16]
    for hidden in (lists, meta):
        hidden.sheet_state = "veryHidden"
    wb.security = WorkbookProtection(workbookPassword=_PLACEHOLDER[:16], lockStructure=True)
    wb.properties.creator = "teamllm-web"
    wb.properties.title = _TITLE_MARK
    wb.calculation.fullCalcOnLoad = True
    out = io.BytesIO()
    wb.save(out)
    with zipfile.ZipFile(io.BytesIO(out.getvalue())) as archive:
        parts = {name: archive.read(name) for name in archive.namelist()}

    def sheet_xml(ws) -> str:
        return parts.pop(ws.path.lstrip("/")).decode("utf-8")

    response_head, response_tail = _split_sheet(sheet_xml(response))
    meta_head, meta_tail = _split_sheet(sheet_xml(meta))
    return _Skeleton(
        instructions=sheet_xml(instructions),
        lists=sheet_xml(lists),
        response_head=response_head,
        response_tail=response_tail,
        meta_head=meta_head,
        meta_tail=meta_tail,
        workbook=parts.pop("xl/workbook.xml").decode("utf-8"),
        workbook_rels=parts.pop("xl/_rels/workbook.xml.rels").decode("utf-8"),
        content_types=parts.pop("[Content_Types].xml").decode("utf-8"),
        core=parts.pop("docProps/core.xml").decode("utf-8"),
        parts=parts,
        placeholder_hash=hash_password(_PLACEHOLDER[:16]),
        rows=_sheet_rows(rubric_version, lang, ids),
        quoted_text=quoted_text,
    )


def _protected(xml: str, skeleton: _Skeleton, password_hash: str) -> str:
    return xml.replace(f'password="{skeleton.placeholder_hash}"', f'password="{password_hash}"', 1)


def _sheet_data(skeleton: _Skeleton, content: WorkbookContent, sheet: SheetContent) -> str:
    """The <sheetData> of one response sheet (about 330 cells)."""
    fixed = {
        "rater": content.rater_label,
        "scenario": content.scenario_code,
        "blind": sheet.blind_code,
        "grid_hint": sheet.grid_hint,
    }

    def slot_value(name: str) -> str:
        if name.startswith("answer."):
            return sheet.answers[int(name.split(".")[1]) - 1]
        if name.startswith("item."):
            _, step, pos = name.split(".")
            texts = sheet.items.get(int(step), [])
            return texts[int(pos) - 1] if int(pos) <= len(texts) else ""
        return fixed[name]

    values = sheet.values
    parts = ["<sheetData>"]
    for row, height, cells in skeleton.rows:
        if isinstance(height, tuple):
            name, chars_per_line = height
            height = _row_height(slot_value(name), chars_per_line)
        parts.append(f'<row r="{row}" ht="{height}" customHeight="1">' if height else f'<row r="{row}">')
        for cell in cells:
            if isinstance(cell, str):
                parts.append(cell)
            elif cell[0] == "slot":
                parts.append(_text_cell(cell[1], slot_value(cell[2]), cell[3], cell[4]))
            else:
                parts.append(_value_cell(cell[1], values.get(cell[2]), cell[3], cell[4]))
        parts.append("</row>")
    parts.append("</sheetData>")
    return "".join(parts)


def _meta_data(skeleton: _Skeleton, content: WorkbookContent) -> str:
    parts = ["<sheetData>"]
    for row, pair in enumerate(meta_rows(content), start=1):
        parts.append(f'<row r="{row}">')
        for col, value in zip("AB", pair, strict=True):
            text = clean_text(value)
            style = f' s="{skeleton.quoted_text}"' if looks_like_formula(text) else ""
            parts.append(f'<c r="{col}{row}"{style} t="inlineStr"><is><t>{escape(text)}</t></is></c>')
        parts.append("</row>")
    parts.append("</sheetData>")
    return "".join(parts)


def workbook_bytes(content: WorkbookContent) -> bytes:
    """The .xlsx file for ``content``: Instructions, one sheet per response, Lists and Meta
    (both very hidden); every sheet and the structure protected."""
    sk = _skeleton(content.rubric_version, content.lang)
    hidden_hash = hash_password(secrets.token_urlsafe(12))
    response_hash = hash_password(content.token[:16] or "teamllm")
    max_row = max(row for row, _height, _cells in sk.rows)
    response_head = _DIMENSION.sub(f'<dimension ref="A1:H{max_row}" />', sk.response_head, count=1)
    response_tail = _protected(sk.response_tail, sk, response_hash)
    meta_count = len(meta_rows(content))
    sheets = [(INSTRUCTIONS, "visible", _protected(sk.instructions, sk, hidden_hash))]
    sheets += [
        (s.blind_code, "visible", response_head + _sheet_data(sk, content, s) + response_tail)
        for s in content.sheets
    ]
    sheets.append((LISTS, "veryHidden", _protected(sk.lists, sk, hidden_hash)))
    meta_head = _DIMENSION.sub(f'<dimension ref="A1:B{meta_count}" />', sk.meta_head, count=1)
    sheets.append(
        (META, "veryHidden", meta_head + _meta_data(sk, content) + _protected(sk.meta_tail, sk, hidden_hash))
    )

    sheet_list = "".join(
        f'<sheet name="{_attr(name)}" sheetId="{i}" state="{state}" r:id="rId{i}" />'
        for i, (name, state, _xml) in enumerate(sheets, start=1)
    )
    workbook = _SHEETS.sub(lambda _m: f"<sheets>{sheet_list}</sheets>", sk.workbook, count=1).replace(
        f'workbookPassword="{sk.placeholder_hash}"', f'workbookPassword="{hidden_hash}"', 1
    )
    others = [r for r in _RELATIONSHIP.findall(sk.workbook_rels) if _WORKSHEET_TYPE + '"' not in r]
    rels = [
        f'<Relationship Type="{_WORKSHEET_TYPE}" Target="/xl/worksheets/sheet{i}.xml" Id="rId{i}" />'
        for i in range(1, len(sheets) + 1)
    ]
    rels += [re.sub(r'Id="[^"]*"', f'Id="rId{len(sheets) + k}"', r) for k, r in enumerate(others, start=1)]
    start = sk.workbook_rels.index("<Relationship ")
    workbook_rels = sk.workbook_rels[:start] + "".join(rels) + "</Relationships>"
    overrides = "".join(
        f'<Override PartName="/xl/worksheets/sheet{i}.xml" ContentType="{_WORKSHEET_CONTENT}" />'
        for i in range(1, len(sheets) + 1)
    )
    content_types = _WORKSHEET_OVERRIDE.sub("", sk.content_types).replace("</Types>", overrides + "</Types>")
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    core = _STAMP.sub(lambda m: m.group(1) + now + m.group(2), sk.core).replace(
        _TITLE_MARK, escape(f"{content.rater_label}_{content.scenario_code}")
    )

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in ("docProps/app.xml", "xl/theme/theme1.xml"):
            archive.writestr(name, sk.parts[name])
        archive.writestr("docProps/core.xml", core)
        for i, (_name, _state, xml) in enumerate(sheets, start=1):
            archive.writestr(f"xl/worksheets/sheet{i}.xml", xml)
        for name, data in sk.parts.items():
            if name not in ("docProps/app.xml", "xl/theme/theme1.xml"):
                archive.writestr(name, data)
        archive.writestr("xl/workbook.xml", workbook)
        archive.writestr("xl/_rels/workbook.xml.rels", workbook_rels)
        archive.writestr("[Content_Types].xml", content_types)
    return out.getvalue()

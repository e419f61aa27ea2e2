"""The sheets of an offline scoring workbook (openpyxl's public API).

Sheets: ``Instructions`` (English and Chinese), one sheet per response named by
its blind code (laid out by ``layout.sheet_layout``), and two very hidden,
protected sheets: ``Lists`` (dropdown values) and ``Meta`` (format, rater,
scenario, the sheets with the version each had at export, and an HMAC token over
them). Only the rater's cells are unlocked; ``package.workbook_bytes`` puts the
sheets together and locks the workbook's structure.

openpyxl, not XlsxWriter, writes these files: XlsxWriter cannot lock a workbook's
structure (its author declined the feature), and raters must not be able to
rename, add or reorder sheets.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from studies.rubric import Rubric, ScoreSpec, load_rubric
from studies.rubric.cgpst import version_is_cgpst

from .cells import clean_text, value_cell_set
from .layout import COLUMN_WIDTHS, FORMAT, sheet_layout
from .vocab import category_options, invalid_options

if TYPE_CHECKING:
    # openpyxl is imported where a workbook is written or read, never by a web
    # process that only serves pages (issue 14: lean web workers).
    from openpyxl.cell import Cell
    from openpyxl.worksheet.cell_range import CellRange
    from openpyxl.worksheet.datavalidation import DataValidation

INSTRUCTIONS = "Instructions"
LISTS = "Lists"
META = "Meta"
# the Meta row of a single-text study's workbook, whose sheets have their own layout
TASK_KEY, CGPST_TASK, TEXT_TASKS = "task", "cgpst", ("text", "pair")  # studies.models.TaskKind

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
    answers: list[str]  # as shown; a single-text response's one text first
    items: dict[int, list[str]]
    grid_hint: str
    values: dict[str, Any] = field(default_factory=dict)  # input path -> pre-filled value
    check_hints: str = ""  # what the rubric's checks on the text find, a line each
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
    task: str = CGPST_TASK  # a single-text study's ("text": one text once a sheet) or a pair's (two)


@lru_cache(maxsize=1)
def _styles() -> dict[str, dict[str, Any]]:
    """Named styles: a cell takes all of its formatting from one name, which costs a few
    microseconds instead of re-hashing four or five style objects per cell."""
    from openpyxl.styles import Alignment, Border, Font, PatternFill, Protection, Side

    thin = Side(style="thin", color="7F7F7F")
    border = Border(left=thin, right=thin, top=thin, bottom=thin)
    wrap = Alignment(wrap_text=True, vertical="top")
    center = Alignment(wrap_text=True, vertical="center", horizontal="center")
    fill_input = PatternFill("solid", fgColor="FFF2CC")
    unlocked = Protection(locked=False)
    return {
        "section": {
            "fill": PatternFill("solid", fgColor="000000"),
            "font": Font(bold=True, color="FFFFFF"),
            "alignment": center,
        },
        "label": {"fill": PatternFill("solid", fgColor="DDEBF7"), "alignment": center, "border": border},
        "plain": {"alignment": wrap, "border": border},
        "formula": {"fill": PatternFill("solid", fgColor="FFD966"), "border": border, "alignment": center},
        "input_text": {"protection": unlocked, "fill": fill_input, "border": border, "alignment": wrap},
        "input_choice": {"protection": unlocked, "fill": fill_input, "border": border, "alignment": center},
        "note": {"alignment": wrap},
        "note_bold": {"alignment": wrap, "font": Font(bold=True)},
    }


def style_name(key: str) -> str:
    """The name Excel shows in its cell-style gallery (nothing about the study)."""
    return "Scoring " + key.replace("_", " ")


def styles_add(wb) -> None:
    """Register the workbook's named styles (fresh objects: a style binds to one workbook)."""
    from openpyxl.styles import NamedStyle
    from openpyxl.styles.fonts import DEFAULT_FONT

    for key, spec in _styles().items():
        wb.add_named_style(NamedStyle(style_name(key), **{"font": DEFAULT_FONT, **spec}))


_WIDE = re.compile(
    r"[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]"
)


def _display_width(text: str) -> int:
    return len(text) + len(_WIDE.findall(text))  # CJK characters are two columns wide


@lru_cache(maxsize=256)
def row_height(text: str, chars_per_line: int) -> float:
    lines = sum(max(1, math.ceil(_display_width(line) / chars_per_line)) for line in str(text).split("\n"))
    return min(409.0, max(15.0, 15.0 * lines))


def cell_new(ws, *, value: Any = None, style: str | None = None) -> Cell:
    """A cell for ``ws.append``: numbers stay numbers, text stays text (never a formula)."""
    from openpyxl.cell import Cell

    cell = Cell(ws)
    if style:
        cell.style = style_name(style)  # first: a style replaces the quote prefix too
    if isinstance(value, str):
        value = clean_text(value)  # an empty text stays a blank (styled) cell
    if value is not None and value != "":
        value_cell_set(cell, value)
    return cell


def formula_cell(ws, *, formula: str, style: str) -> Cell:
    """A computed cell (fixed by the layout, never text from a user)."""
    from openpyxl.cell import Cell

    cell = Cell(ws, value=formula)  # a string starting with "=" is stored as a formula
    cell.style = style_name(style)
    return cell


_GUIDELINES_HEAD = {
    "en": ("Scoring guidelines (from the study's scoring instructions)", "Level descriptions written for this "
           "platform (the study's sheet gives one description for these dimensions): "),
    "zh": ("评分指南（来自研究的评分说明）", "以下维度的各级描述由本平台编写（研究的评分表对这些维度只给出一条描述）："),
}  # fmt: skip


def guideline_paragraphs(rubric: Rubric, lang: str) -> list[str]:
    """The rubric's scoring guidelines, step by step, and which level texts are the platform's."""
    head, platform = _GUIDELINES_HEAD[lang]
    out = [head]
    for step in rubric.steps:
        parts = [step.guideline.text(lang)] if step.guideline else []
        parts += [d.guideline.text(lang) for d in step.dimensions if d.guideline]
        if parts:
            out.append(f"{step.name.text(lang)}: " + " ".join(parts))
    ours = [
        f"{step.number}. {spec.label.text(lang)}"
        for step in rubric.steps
        for spec in (*step.item_scores, *step.dimensions)
        if spec.levels_source == "platform"
    ]
    return [*out, platform + "; ".join(ours)]


_OTHER_RUBRIC = {
    "en": ("offline scoring workbook", "Score each step", "for each item"),
    "zh": ("离线评分工作簿", "为每一步评分", "每一项"),
}


def instructions_lines(rubric: Rubric, lang: str) -> list[str]:
    """The workbook's instructions: CGPST's, or for another rubric its own steps and ranges in
    place of CGPST's points 3 and 4 (and the later points numbered on)."""
    base = INSTRUCTIONS_EN if lang == "en" else INSTRUCTIONS_ZH
    if version_is_cgpst(rubric.version):
        return base
    title, score_each, per_item = _OTHER_RUBRIC[lang]
    colon, semicolon = ("：", "；") if lang == "zh" else (": ", "; ")

    def ranges(specs: tuple[ScoreSpec, ...]) -> str:
        return ", ".join(f"{spec.label.text(lang)} ({spec.min}-{spec.max})" for spec in specs)

    steps = [
        f"{step.name.text(lang)}{colon}"
        + (f"{per_item} {ranges(step.item_scores)}" if step.has_items else ranges(step.scored_dimensions))
        for step in rubric.steps
    ]
    tail = [f"{int(text.split('.', 1)[0]) - 1}.{text.split('.', 1)[1]}" for text in base[6:]]
    return [
        f"{rubric.title.text(lang)}{colon}{title}",
        "",
        base[2],
        base[3],
        f"3. {score_each}{colon}" + semicolon.join(steps),
        *tail,
    ]


def instructions_write(ws, *, rubric: Rubric) -> None:
    """The bilingual instructions and scoring guidelines, one paragraph per row."""
    ws.column_dimensions["A"].width = 120
    head_en, head_zh = instructions_lines(rubric, "en"), instructions_lines(rubric, "zh")
    en = [*head_en, "", *guideline_paragraphs(rubric, "en")]
    zh = [*head_zh, "", *guideline_paragraphs(rubric, "zh")]
    headings = {1, len(head_en) + 2, len(en) + 2, len(en) + len(head_zh) + 3}
    for row, text in enumerate([*en, "", *zh], start=1):
        ws.append([cell_new(ws, value=text, style="note_bold" if row in headings else "note")])


@lru_cache(maxsize=16)
def list_columns(rubric_version: str, lang: str) -> tuple[tuple[tuple[str, int], tuple[str, ...]], ...]:
    """The dropdown lists, one column each: categories, then each idea step's invalid types."""
    rubric = load_rubric(rubric_version)
    columns = [(("category", 0), tuple(category_options(rubric, lang)))]
    columns += [
        (("invalid", s.number), tuple(invalid_options(rubric, s.number, lang)))
        for s in rubric.steps
        if s.kind == "ideas"
    ]
    return tuple(columns)


def lists_write(ws, *, content: WorkbookContent) -> None:
    """The dropdowns' values, one list per column (``_structure`` points at them)."""
    columns = list_columns(content.rubric_version, content.lang)
    depth = max(len(options) for _key, options in columns)
    for row in range(depth):
        ws.append([cell_new(ws, value=o[row]) if row < len(o) else None for _key, o in columns])


def meta_rows(content: WorkbookContent) -> list[tuple[str, str]]:
    """What the import checks and the token signs: (key, value) rows of the Meta sheet."""
    rows = [
        ("format", FORMAT),
        ("rater", content.rater_label),
        ("scenario", content.scenario_code),
        ("rubric", content.rubric_version),
        ("language", content.lang),
        ("token", content.token),
    ]
    if content.task != CGPST_TASK:  # only then: a CGPST workbook's Meta is as it always was
        rows.append((TASK_KEY, content.task))
    rows += [(f"sheet.{s.blind_code}", str(s.version)) for s in content.sheets]
    return rows


def meta_write(ws, *, content: WorkbookContent) -> None:
    for key, value in meta_rows(content):
        ws.append([cell_new(ws, value=key), cell_new(ws, value=value)])  # text, even "0" or "=..."


ListKey = tuple[str, int, int, int]  # kind, step (of an invalid type's list, else 0), lowest, highest


@lru_cache(maxsize=16)
def validation_ranges(
    rubric_version: str, lang: str, task: str = CGPST_TASK
) -> tuple[tuple[ListKey, str], ...]:
    """(dropdown key, space-separated cells) for every list the sheet offers."""
    groups: dict[ListKey, list[str]] = {}
    for inp in sheet_layout(rubric_version, lang, task=task).inputs:
        if inp.kind != "text":
            key = (inp.kind, inp.step if inp.kind == "invalid" else 0, inp.lo, inp.hi)
            groups.setdefault(key, []).append(inp.coord)
    return tuple((key, " ".join(coords)) for key, coords in groups.items())


@lru_cache(maxsize=16)
def _structure(
    rubric_version: str, lang: str, task: str
) -> tuple[tuple[DataValidation, ...], tuple[CellRange, ...]]:
    """The dropdowns and merges of a response sheet, made once: every sheet shares these
    objects (openpyxl only reads them when it writes a sheet)."""
    from openpyxl.utils import get_column_letter
    from openpyxl.worksheet.cell_range import CellRange
    from openpyxl.worksheet.datavalidation import DataValidation

    refs: dict[tuple[str, int], str] = {}
    for col, (column, options) in enumerate(list_columns(rubric_version, lang), start=1):
        letter = get_column_letter(col)
        refs[column] = f"{LISTS}!${letter}$1:${letter}${len(options)}"
    validations = []
    for key, sqref in validation_ranges(rubric_version, lang, task):
        kind, _step, lo, hi = key
        if kind == "score":
            formula = '"' + ",".join(str(v) for v in range(lo, hi + 1)) + '"'
        else:
            formula = refs[(kind, _step)]
        validations.append(
            DataValidation(
                type="list",
                formula1=formula,
                allow_blank=True,
                showErrorMessage=True,
                errorTitle="CGPST",
                error="Choose a value from the list. 请从列表中选择。",
                sqref=sqref,
            )
        )
    merges = tuple(CellRange(rng) for rng in sheet_layout(rubric_version, lang, task=task).merges)
    return tuple(validations), merges


def response_sheet_setup(ws, *, content: WorkbookContent) -> None:
    """Everything of a response sheet but its cells: columns, dropdowns, merges, panes and
    protection (the password is the token's start, as raters have always had it)."""
    for col, width in COLUMN_WIDTHS.items():
        ws.column_dimensions[col].width = width
    ws.column_dimensions["H"].hidden = True
    from openpyxl.worksheet.cell_range import MultiCellRange

    validations, merges = _structure(content.rubric_version, content.lang, content.task)
    for validation in validations:
        ws.data_validations.append(validation)
    # the ranges only, as always: ws.merge_cells() would also create and border the covered cells
    ws.merged_cells = MultiCellRange(merges)
    ws.freeze_panes = "A3"
    ws.protection.sheet = True
    ws.protection.password = content.token[:16] or "teamllm"
    ws.protection.formatColumns = False
    ws.protection.formatRows = False

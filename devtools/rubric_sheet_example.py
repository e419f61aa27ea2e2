"""Write docs/examples/likert-sheet.xlsx: the worked example of an Excel scoring sheet whose notes
mark its score cells (docs/rubric-format.md, "From an Excel scoring sheet").

    .venv/bin/python -m devtools.rubric_sheet_example [PATH]
"""

from __future__ import annotations

import sys
from pathlib import Path

from openpyxl import Workbook
from openpyxl.comments import Comment
from openpyxl.styles import Font

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "likert-sheet.xlsx"

LEVELS = [
    "Not at all / 完全没有",
    "Barely / 几乎没有",
    "Partly / 部分",
    "Half / 一半",
    "Mostly / 大部分",
    "Almost fully / 几乎完全",
    "Fully / 完全",
]


def example_workbook() -> Workbook:
    book = Workbook()
    ws = book.active
    ws.title = "Scoring"

    def note(coordinate: str, text: str) -> None:
        ws[coordinate].comment = Comment(text, "lab")

    ws["A1"] = "Lab's 1-7 sheet / 实验室 1-7 分评分表"
    ws["A1"].font = Font(bold=True, size=14)
    note("A1", "title version=lab-sheet-v1")
    ws["A2"] = "Response code:"
    rows = [
        (4, "Usefulness / 有用程度", [("Helpfulness / 有用性", "key=helpfulness levels")]),
        (
            7,
            "Safety and truth / 安全与真实",
            [("Harmlessness / 无害性", "levels"), ("Honesty / 诚实性", "levels")],
        ),
    ]
    for row, step, scores in rows:
        ws.cell(row=row, column=1, value=step).font = Font(bold=True)
        note(f"A{row}", "step")
        for offset, (label, options) in enumerate(scores, start=1):
            ws.cell(row=row + offset, column=1, value=label)
            note(f"B{row + offset}", f"score 1-7 {options}")
            for i, level in enumerate(LEVELS):
                ws.cell(row=row + offset, column=3 + i, value=level)
    ws.column_dimensions["A"].width = 32
    return book


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else EXAMPLE
    target.parent.mkdir(parents=True, exist_ok=True)
    example_workbook().save(target)
    print(f"wrote {target}")

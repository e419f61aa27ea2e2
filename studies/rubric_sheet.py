"""A lab's own Excel scoring sheet as a rubric document: the sheet marks its score cells with
notes (docs/rubric-format.md, "From an Excel scoring sheet"), and this reads them.

- a score cell's note: ``score 1-7`` (optional ``key=<name>``; ``levels``: the level texts
  stand in the cells to its right, lowest score first); its label is the nearest text to its left;
- a cell whose note is ``step`` names the step that the scores below it belong to;
- a cell whose note is ``title`` (optional ``version=<name>``) names the rubric.

A text written ``English / 中文`` gives both languages. Every problem is named with its cell, and
the document is then checked as any rubric (``studies.rubric.parse_rubric``).
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from typing import Any

from studies.rubric import RubricError
from studies.rubric.document import rubric_document_read
from studies.xlsx_safety import XlsxLimits, XlsxRefused, xlsx_check

RUBRIC_XLSX_LIMITS = XlsxLimits(
    max_bytes=2_000_000,
    max_total=20_000_000,
    max_part=4_000_000,
    max_sheet_part=8_000_000,
    max_sheets=20,
    max_rows=2_000,
    max_columns=200,
    max_cells=200_000,
)
_SCORE = re.compile(
    r"score\s+(?P<min>\d{1,4})\s*[-–]\s*(?P<max>\d{1,4})(?P<rest>.*)", re.IGNORECASE | re.DOTALL
)
_OPTION = re.compile(r"(\w+)(?:=([\w.-]+))?")
_HAN = re.compile(r"[\u3400-\u9fff]")


@dataclass
class _Step:
    name: dict[str, str]
    dimensions: list[dict[str, Any]] = field(default_factory=list)


def _text(value: object) -> dict[str, str]:
    """``English / 中文`` as both languages; a text alone in the language its letters are."""
    text = str(value).strip()
    if " / " in text:
        en, zh = (part.strip() for part in text.split(" / ", 1))
        return {"en": en, "zh": zh}
    return {"zh": text} if _HAN.search(text) and not re.search(r"[A-Za-z]", text) else {"en": text}


def _note_text(text: str) -> str:
    """A note's words, without the "Author:" line Excel puts above a note's text."""
    lines = text.strip().splitlines()
    if len(lines) > 1 and lines[0].rstrip().endswith(":"):
        lines = lines[1:]
    return "\n".join(lines).strip()


def _options(rest: str) -> dict[str, str]:
    return {m.group(1).lower(): m.group(2) or "" for m in _OPTION.finditer(rest)}


def _key(label: dict[str, str], where: str) -> str:
    base = re.sub(r"[^a-z0-9]+", "_", label.get("en", "").lower()).strip("_")
    return base or "d_" + where.lower().replace("!", "_")


class _Reader:
    def __init__(self, file_name: str):
        self.problems: list[str] = []
        self.steps: list[_Step] = []
        self.title: dict[str, str] = {}
        self.version = re.sub(r"[^a-z0-9._-]+", "-", file_name.lower().rsplit(".", 1)[0]).strip("-.")[:28]

    def sheet(self, ws: Any) -> None:
        for row in ws.iter_rows():
            for cell in row:
                note = _note_text(cell.comment.text if cell.comment else "")
                if note:
                    self.note(ws, cell, note)

    def note(self, ws: Any, cell: Any, note: str) -> None:
        where = f"{ws.title}!{cell.coordinate}"
        head = note.split(None, 1)[0].lower()
        if head == "title":
            self.title = _text(cell.value or ws.title)
            self.version = _options(note[5:]).get("version", self.version)
        elif head == "step":
            if cell.value in (None, ""):
                self.problems.append(f"{where}: a step's cell needs the step's name")
            self.steps.append(_Step(name=_text(cell.value or where)))
        elif head == "score":
            self.score(ws, cell, note, where)

    def score(self, ws: Any, cell: Any, note: str, where: str) -> None:
        found = _SCORE.fullmatch(note)
        if found is None:
            self.problems.append(f"{where}: the note {note[:40]!r} needs a range, as 'score 1-7'")
            return
        low, high, options = int(found["min"]), int(found["max"]), _options(found["rest"])
        label_cell = next(
            (
                c
                for c in reversed(ws[cell.row][: cell.column - 1])
                if isinstance(c.value, str) and c.value.strip()
            ),
            None,
        )
        if label_cell is None:
            self.problems.append(f"{where}: no label to the left of the score cell")
            return
        label = _text(label_cell.value)
        dimension: dict[str, Any] = {"label": label, "min": low, "max": high, "where": where}
        dimension["key"] = options.get("key") or _key(label, where)
        if "levels" in options and high >= low:
            texts = [ws.cell(row=cell.row, column=cell.column + 1 + i).value for i in range(high - low + 1)]
            if any(t in (None, "") for t in texts):
                self.problems.append(
                    f"{where}: 'levels' needs {high - low + 1} level texts right of the score cell, one per score"
                )
            else:
                dimension["levels_source"] = "sheet"
                dimension["levels"] = [{"score": low + i, **_text(t)} for i, t in enumerate(texts)]
        if not self.steps:
            self.steps.append(_Step(name=_text(ws.title)))
        self.steps[-1].dimensions.append(dimension)

    def document(self) -> dict[str, Any]:
        steps = [s for s in self.steps if s.dimensions]
        if not steps:
            self.problems.append("no score cell is marked: give each a note such as 'score 1-7'")
        keys: dict[str, str] = {}
        out_steps = []
        for number, step in enumerate(steps, start=1):
            dimensions = []
            for d in step.dimensions:
                where = d.pop("where")
                if d["key"] in keys:
                    self.problems.append(f"{where}: the key {d['key']!r} is given at {keys[d['key']]} too")
                keys[d["key"]] = where
                dimensions.append({**d, "key": f"s{number}.{d['key']}"})
            out_steps.append(
                {
                    "number": number,
                    "name": step.name,
                    "kind": "dimensions",
                    "max": sum(d["max"] for d in dimensions),
                    "dimensions": dimensions,
                }
            )
        texts = [self.title, *(s["name"] for s in out_steps)]
        texts += [d["label"] for s in out_steps for d in s["dimensions"]]
        languages = [lang for lang in ("en", "zh") if any(lang in t for t in texts)] or ["en"]
        return {
            "format": 1,
            "version": self.version or "sheet",
            "languages": languages,
            "title": self.title or {"en": self.version or "Scoring sheet"},
            "max_total": sum(s["max"] for s in out_steps),
            "steps": out_steps,
        }


def rubric_from_sheet(*, content: bytes, file_name: str) -> dict[str, Any]:
    """The rubric document an Excel scoring sheet marks; RubricError names every problem
    (with its cell) and no document is made."""
    from openpyxl import load_workbook  # loaded only for an Excel rubric

    try:
        xlsx_check(content, RUBRIC_XLSX_LIMITS)
    except XlsxRefused as exc:
        raise RubricError([exc.message]) from None
    try:  # not read-only: notes are read only by a full load (bounded by the check above)
        workbook = load_workbook(io.BytesIO(content), data_only=True)
    except Exception as exc:  # noqa: BLE001 - openpyxl raises many kinds on a damaged file
        raise RubricError(["the file is not a readable Excel workbook (.xlsx)"]) from exc
    reader = _Reader(file_name)
    for ws in workbook.worksheets:
        reader.sheet(ws)
    document = reader.document()
    if reader.problems:
        raise RubricError(reader.problems)
    return document


def rubric_file_read(*, content: bytes, file_name: str) -> dict[str, Any]:
    """The rubric document of any rubric file: an Excel scoring sheet (.xlsx) by its notes, else
    the format's JSON or YAML; RubricError names every problem."""
    if file_name.lower().endswith(".xlsx"):
        return rubric_from_sheet(content=content, file_name=file_name)
    return rubric_document_read(content=content, name=file_name)

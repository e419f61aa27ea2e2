"""Score sheets in the release's own Excel layout: one workbook per rater and scenario
(``<rater code>_<scenario>.xlsx``), one worksheet per research ID, every dimension score, step
total and the total in the cells the study's scoring sheet has them, as the release's
``Extract_Scores.py`` reads them (its ``location``: ``get_original_scores`` takes the rater and
scenario from the file's name and the research ID from the worksheet's). Values are written as
numbers, so a reader that takes cached values (pandas) reads the scores the product holds. Pure:
openpyxl only; the sheets come from ``research.selectors.release_sheets``."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

# The study's scoring sheet's cells (Extract_Scores.py ``location``), by the rubric's keys: each
# dimension, each step's total ("step:N"), the total and the sheet's heading.
RELEASE_CELLS = {
    "s1.fluency": "W19", "s1.flexibility": "W21", "s1.elaboration": "W23", "s1.originality": "W25",
    "step:1": "W27",
    "s2.condition_phrase": "U32", "s2.stem_kvp": "U34", "s2.purpose": "U37", "s2.fs_parameters": "U40",
    "s2.focus": "U43", "s2.adequacy": "U46", "step:2": "W49",
    "s3.fluency": "W70", "s3.flexibility": "W72", "s3.elaboration": "W74", "s3.originality": "W76",
    "step:3": "W78",
    "s4.correctly_written": "X86", "s4.relevance": "X89", "step:4": "W95",
    "s5.correctly_used": "X92", "step:5": "W97",
    "s6.relevance": "Y102", "s6.effectiveness": "Y106", "s6.criteria": "Y110", "s6.impact": "Y114",
    "s6.humaneness": "Y118", "s6.development": "Y122", "step:6": "W129",
    "overall": "X133",
}  # fmt: skip
HEADING_CELLS = {"rater": "F2", "scenario": "R2", "research_id": "X2"}
_UNSAFE = re.compile(r"[^\w.\-]+")


@dataclass(frozen=True)
class ReleaseSheet:
    """One submitted sheet: who scored which response, and its scores by ``RELEASE_CELLS``' keys."""

    rater: str  # the rater's code (H01), as the release names its files
    scenario: str
    research_id: str
    scores: dict[str, int]


def release_file_name(*, rater: str, scenario: str) -> str:
    """``H01_FS10.xlsx``: the release's reader splits the name at "_" (rater, scenario), so an
    underscore inside either becomes a hyphen."""
    return f"{_file_part(rater)}_{_file_part(scenario)}.xlsx"


def _file_part(text: str) -> str:
    return _UNSAFE.sub("-", text).replace("_", "-")


def _label(cell: str) -> str:
    """The cell left of ``cell``, where its label goes (never a cell the reader reads)."""
    column = re.match(r"[A-Z]+", cell)[0]  # type: ignore[index]
    return f"{chr(ord(column) - 1)}{cell[len(column) :]}"


def release_workbooks_write(sheets: Iterable[ReleaseSheet], folder: Path) -> list[Path]:
    """Write one workbook per rater and scenario into ``folder`` (made if missing); the paths, sorted."""
    # openpyxl (and the numpy it loads) is imported where a workbook is written, never by a web
    # process at start-up (tests/project/test_pure_modules.py)
    from openpyxl import Workbook

    by_file: dict[str, list[ReleaseSheet]] = defaultdict(list)
    for sheet in sheets:
        by_file[release_file_name(rater=sheet.rater, scenario=sheet.scenario)].append(sheet)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, members in sorted(by_file.items()):
        book = Workbook()
        book.remove(book.active)
        for sheet in sorted(members, key=lambda s: s.research_id):
            ws = book.create_sheet(title=sheet.research_id[:31])
            heading = {"rater": sheet.rater, "scenario": sheet.scenario, "research_id": sheet.research_id}
            for key, cell in HEADING_CELLS.items():
                ws[_label(cell)] = key.replace("_", " ")
                ws[cell] = heading[key]
            for key, cell in RELEASE_CELLS.items():
                ws[_label(cell)] = key
                ws[cell] = sheet.scores[key]
        path = folder / name
        book.save(path)
        written.append(path)
    return written

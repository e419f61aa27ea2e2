"""Score sheets in the release's own Excel layout: one workbook per rater and scenario
(``<rater code>_<scenario>.xlsx``), one worksheet per research ID, every dimension score, step
total and the total in the cells the study's scoring sheet has them, as the release's
``Extract_Scores.py`` reads them (its ``location``: ``get_original_scores`` takes the rater and
scenario from the file's name and the research ID from the worksheet's). Values are written as
numbers, so a reader that takes cached values (pandas) reads the scores the product holds. Pure:
openpyxl only; the sheets come from ``research.selectors.release_sheets``; the cells, and the reader
of such workbooks, are ``scoring.workbooks.release_layout``'s."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from scoring.workbooks.release_layout import HEADING_CELLS, RELEASE_CELLS, ReleaseSheet, release_file_name

__all__ = ["RELEASE_CELLS", "ReleaseSheet", "release_file_name", "release_workbooks_write"]


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

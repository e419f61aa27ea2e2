"""The study's own Excel layout (the release's scoring sheets), both ways: where each score
stands, and a reader of a lab's scored sheets in it. Pure: openpyxl only, no database.

A workbook per rater and scenario (``<rater code>_<scenario>.xlsx``), a worksheet per research
ID, every dimension score, step total and the total in the cells the study's scoring sheet has
them, as the release's ``Extract_Scores.py`` reads them (its ``location``; ``get_original_scores``
takes the rater and scenario from the file's name and the research ID from the worksheet's).
Those cells hold the dimension scores alone: the items a rater classified stand in cells the
release does not locate, so a sheet read here is a sheet of dimension scores
(``scoring.models.SheetLevel.DIMENSIONS``).
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from scoring.workbooks.safety import WorkbookRefused
from studies.rubric import Rubric
from studies.xlsx_safety import DAMAGED, XlsxLimits, read_bounded, xlsx_check

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

# A scored sheet of the study: about 133 rows of 26 columns, every bordered cell written; a
# workbook holds one session's responses (ten in the study)
RELEASE_LIMITS = XlsxLimits(
    max_bytes=20 * 1024 * 1024,
    max_total=128 * 1024 * 1024,
    max_part=16 * 1024 * 1024,
    max_sheet_part=4 * 1024 * 1024,
    max_sheets=64,
    max_rows=1000,
    max_columns=100,
    max_cells=100 * 20_000,
)
MAX_FILES = 2000  # a folder or zip: the paper's study has 1,304 sheets in about 130 workbooks
MAX_UNPACKED = 256 * 2**20  # every workbook of a folder or zip together, unpacked from their zip
MAX_SHEETS = 5000  # every worksheet read (about 5 ms each): a lab's study many times the paper's


@dataclass(frozen=True)
class ReleaseSheet:
    """One scored sheet: who scored which response, its scores by ``RELEASE_CELLS``' keys, and
    where it was read (file and worksheet)."""

    rater: str  # the rater's code (H01), as the release names its files
    scenario: str
    research_id: str
    scores: dict[str, int]
    where: str = ""
    readable: bool = True  # False: its problems are listed, and its response is not imported


def release_file_name(*, rater: str, scenario: str) -> str:
    """``H01_FS10.xlsx``: the release's reader splits the name at "_" (rater, scenario), so an
    underscore inside either becomes a hyphen."""
    return f"{release_name_part(rater)}_{release_name_part(scenario)}.xlsx"


def release_name_part(text: str) -> str:
    """A code as a file name of the layout writes it (no underscore: the name is split at one)."""
    return _UNSAFE.sub("-", text).replace("_", "-")


def release_files_expand(files: Iterable[tuple[str, bytes]]) -> tuple[list[tuple[str, bytes]], list[str]]:
    """The workbooks among ``files`` (each a name and its bytes): a .zip's .xlsx members read
    (bounded: ``MAX_FILES`` and ``MAX_UNPACKED`` in all, ``RELEASE_LIMITS.max_bytes`` each, read no
    further than that whatever the zip's directory says; stored or deflated members only), other
    names than .xlsx and .zip named as problems; hidden files and folders (``__MACOSX``,
    ``~$H01_FS10.xlsx``) left out."""
    found: list[tuple[str, bytes]] = []
    problems: list[str] = []
    unpacked = 0
    for name, data in files:
        base = name.replace("\\", "/").rsplit("/", 1)[-1]
        if _hidden(name):
            continue
        if base.lower().endswith(".xlsx"):
            found.append((base, data))
            unpacked += len(data)
            continue
        if not base.lower().endswith(".zip"):
            problems.append(_("%(file)s: not an .xlsx workbook or a .zip of them") % {"file": base})
            continue
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                members = [i for i in archive.infolist() if i.filename.lower().endswith(".xlsx")]
                members = [i for i in members if not _hidden(i.filename)]
                if len(members) + len(found) > MAX_FILES:
                    problems.append(_("%(file)s: more than %(n)d workbooks") % {"file": base, "n": MAX_FILES})
                    continue
                for info in members:
                    inner = info.filename.rsplit("/", 1)[-1]
                    if (
                        info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
                        or info.flag_bits & 0x1
                    ):
                        problems.append(
                            _("%(file)s: compressed or encrypted in a way this import does not read")
                            % {"file": inner}
                        )
                        continue
                    blob = read_bounded(archive, info.filename, RELEASE_LIMITS.max_bytes)
                    unpacked += len(blob)
                    if unpacked > MAX_UNPACKED:
                        problems.append(
                            _("%(file)s: unpacks to more than %(n)d MB")
                            % {"file": base, "n": MAX_UNPACKED // 2**20}
                        )
                        return found, problems
                    found.append((inner, blob))
        except WorkbookRefused as exc:
            problems.append(f"{base}: {exc.message}")
        except (zipfile.BadZipFile, *DAMAGED) as exc:
            problems.append(_("%(file)s: not a readable zip file (%(err)s)") % {"file": base, "err": exc})
    return found, problems


def _hidden(name: str) -> bool:
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    return base.startswith((".", "~$")) or "__MACOSX/" in name.replace("\\", "/")


def release_workbooks_read(
    files: Iterable[tuple[str, bytes]], *, rubric: Rubric
) -> tuple[list[ReleaseSheet], list[str]]:
    """Every sheet of ``files`` (workbooks in the release's layout) and every problem, each named
    by file, worksheet and cell: a name that is not ``<rater>_<scenario>.xlsx``, a worksheet whose
    name is no research ID, a score missing, not a whole number or outside its dimension's range,
    a step total or the total that is not the sum of its parts. A worksheet with problems comes
    back not ``readable``; the caller stores nothing unless the list of problems is empty."""
    sheets: list[ReleaseSheet] = []
    problems: list[str] = []
    for name, data in files:
        stem = name[: -len(".xlsx")] if name.lower().endswith(".xlsx") else name
        parts = stem.split("_")
        if len(parts) != 2 or not all(parts):
            problems.append(_("%(file)s: the name is not <rater code>_<scenario>.xlsx") % {"file": name})
            continue
        try:
            xlsx_check(data, RELEASE_LIMITS)
        except WorkbookRefused as exc:
            problems.append(f"{name}: {exc.message}")
            continue
        found, wrong = _workbook_sheets(name, data, rater=parts[0], scenario=parts[1], rubric=rubric)
        sheets += found
        problems += wrong
        if len(sheets) > MAX_SHEETS:
            problems.append(_("more than %(n)d worksheets: import them in parts") % {"n": MAX_SHEETS})
            break
    return sheets, problems


def _workbook_sheets(
    name: str, data: bytes, *, rater: str, scenario: str, rubric: Rubric
) -> tuple[list[ReleaseSheet], list[str]]:
    # openpyxl (and the numpy it loads) only where a workbook is read: never at a web process's
    # start-up (tests/project/test_pure_modules.py)
    from openpyxl import load_workbook

    try:
        # cached values: the scoring sheet sums its scores with formulas, saved with their results
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds on a damaged file; the file is named
        return [], [_("%(file)s: not a readable workbook (%(err)s)") % {"file": name, "err": exc}]
    sheets: list[ReleaseSheet] = []
    problems: list[str] = []
    try:
        for ws in book.worksheets:
            where = _("%(file)s, sheet %(sheet)s") % {"file": name, "sheet": ws.title}
            if "_" not in ws.title:  # the release's reader asserts it of every worksheet
                problems.append(
                    _("%(where)s: the sheet's name is no research ID (as A05_FS10)") % {"where": where}
                )
                continue
            values = {row_col: value for row_col, value in _cells(ws)}
            scores, wrong = _scores(values, rubric=rubric, where=where)
            problems += wrong
            sheets.append(ReleaseSheet(rater, scenario, ws.title, scores, where, readable=not wrong))
    finally:
        book.close()
    return sheets, problems


_WANTED = {cell for cell in RELEASE_CELLS.values()}


def _cells(ws: Any) -> Iterable[tuple[str, Any]]:
    """The wanted cells' values, in one pass over the rows (read-only worksheets are streamed)."""
    last_row = max(int(re.sub(r"[A-Z]+", "", cell)) for cell in _WANTED)
    for row in ws.iter_rows(min_row=1, max_row=last_row):
        for cell in row:
            coordinate = getattr(cell, "coordinate", None)
            if coordinate in _WANTED:
                yield coordinate, cell.value


def _scores(values: dict[str, Any], *, rubric: Rubric, where: str) -> tuple[dict[str, int], list[str]]:
    scores: dict[str, int] = {}
    problems: list[str] = []
    for key, cell in RELEASE_CELLS.items():
        value = values.get(cell)
        at = _("%(where)s, cell %(cell)s (%(key)s)") % {"where": where, "cell": cell, "key": key}
        number = _whole(value)
        if number is None:
            problems.append(
                _("%(at)s: no score") % {"at": at}
                if value in (None, "")
                else _("%(at)s: %(value)r is not a whole number") % {"at": at, "value": value}
            )
            continue
        scores[key] = number
        if key in rubric.dimension_keys:
            spec = rubric.dimension(key)
            if not spec.min <= number <= spec.max:
                problems.append(
                    _("%(at)s: %(value)d is outside %(min)d-%(max)d")
                    % {"at": at, "value": number, "min": spec.min, "max": spec.max}
                )
    if problems:
        return scores, problems
    for step in rubric.steps:
        total = sum(scores[d.key] for d in step.dimensions)
        if scores[f"step:{step.number}"] != total:
            cell = RELEASE_CELLS[f"step:{step.number}"]
            problems.append(
                _(
                    "%(where)s, cell %(cell)s: the Step-%(n)d total %(value)d is not the sum of its scores, %(sum)d"
                )
                % {
                    "where": where,
                    "cell": cell,
                    "n": step.number,
                    "value": scores[f"step:{step.number}"],
                    "sum": total,
                }
            )
    overall = sum(scores[f"step:{step.number}"] for step in rubric.steps)
    if scores["overall"] != overall:
        problems.append(
            _("%(where)s, cell %(cell)s: the total %(value)d is not the sum of the step totals, %(sum)d")
            % {"where": where, "cell": RELEASE_CELLS["overall"], "value": scores["overall"], "sum": overall}
        )
    return scores, problems


def _whole(value: Any) -> int | None:
    """A cell's whole number (an int, a float such as 4.0, or a text such as "4"), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d{1,6}\s*", value):
        return int(value)
    return None

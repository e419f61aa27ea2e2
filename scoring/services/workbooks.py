"""Offline scoring workbooks: export per rater and scoring group, import all-or-nothing.

The export holds the rater's not-yet-submitted responses of one scoring group,
by blind code only, with a signed Meta sheet (HMAC over rater, group, sheets and
their versions; the token reveals nothing). The import checks the file
(``workbooks.safety``), the signature, the structure and every value, then
stores and submits every sheet in one transaction, or stores nothing and lists
every problem with its sheet and cell.
"""

from __future__ import annotations

import io
import warnings
import zipfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction
from django.utils import translation
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext as _

from scoring.check_hints import response_check_hints
from scoring.models import Assignment, ScoreSheet, ScoringGroup, SheetSource
from scoring.selectors import sheets_entries_get
from scoring.services.sheets import SheetError, sheet_fill_and_submit
from scoring.workbooks.layout import FORMAT
from scoring.workbooks.package import workbook_bytes
from scoring.workbooks.reader import ParsedSheet, Problem, WorkbookMeta, meta_read, workbook_read
from scoring.workbooks.safety import WorkbookRefused, workbook_file_check
from scoring.workbooks.selectors import rater_by_label, rater_label, workbook_units_get
from scoring.workbooks.vocab import entries_to_cells
from scoring.workbooks.writer import SheetContent, WorkbookContent
from studies.models import ResponseItem, Study, TaskKind
from studies.parsing import ITEM_STEPS
from studies.rubric import IdeaEntry, SheetEntries, load_rubric

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from openpyxl import Workbook

    from scoring.workbooks.selectors import WorkbookUnit
    from studies.models import Response
    from studies.rubric import Rubric

IMPORT_NOTE = "imported from workbook"


class WorkbookError(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass
class ImportResult:
    stored: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def workbook_token(*, rater_id: int, group_id: int, meta: WorkbookMeta) -> str:
    parts = [FORMAT, str(rater_id), str(group_id), meta.rater, meta.scenario, meta.rubric, meta.lang]
    parts += [f"task:{meta.task}"] if meta.task != TaskKind.CGPST else []  # a CGPST one's as it always was
    parts += [f"{code}:{version}" for code, version in meta.sheets]
    return salted_hmac("teamllm-web.workbook", "|".join(parts), algorithm="sha256").hexdigest()


def _lang(rater: User, lang: str | None) -> str:
    if lang:
        return "zh" if lang.startswith("zh") else "en"
    profile = getattr(rater, "rater_profile", None)
    return "zh" if profile and (profile.language or "").startswith("zh") else "en"


def _grid_hint(response: Response) -> str:
    errors = response.grid_errors or []
    if not errors:
        return (
            _("The automatic check found no error in the Step-5 grid.")
            + " / 自动检查未发现第五步表格中的错误。"
        )
    lines = [f"{e.get('where', '')}: {e.get('detail', '')}" for e in errors]
    head = _(
        "The automatic check found %(n)s error(s) in the Step-5 grid (implied Correctly used: %(score)s)."
    ) % {
        "n": len(errors),
        "score": response.implied_correctly_used,
    }
    return head + "\n" + "\n".join(lines)


def _check_hints(response: Response, rubric: Rubric, lang: str) -> str:
    """The page's hints of the rubric's checks on the text, in the workbook's language."""
    with translation.override("zh-hans" if lang == "zh" else "en"):
        hints = response_check_hints(rubric=rubric, response=response, lang=lang)
    return "\n".join(f"{message}: {found}" for message, found in hints)


def _open_assignments(
    *, group_ids: Iterable[int], rater: User | None = None
) -> dict[tuple[int, int], list[Assignment]]:
    """The not-yet-submitted active assignments of the groups, per (rater, group), in each
    rater's own order (one query)."""
    rows = (
        # a rater's probes too (``rater_work``): offline, as on the web, they are work like any other
        Assignment.rater_work.filter(group_id__in=group_ids, archived_at__isnull=True)
        .select_related("response", "sheet")
        .order_by("order_key", "id")
    )
    if rater is not None:
        rows = rows.filter(rater=rater)
    by_unit: dict[tuple[int, int], list[Assignment]] = defaultdict(list)
    for a in rows:
        assert a.group_id is not None  # read by group_id__in, which never matches NULL
        if not (hasattr(a, "sheet") and a.sheet.is_submitted):
            by_unit[(a.rater_id, a.group_id)].append(a)
    return by_unit


def _response_items(response_ids: Iterable[int]) -> dict[int, dict[int, list[str]]]:
    """Each response's parsed item texts by step, in position order (one query)."""
    items: dict[int, dict[int, list[str]]] = {}
    rows = (
        ResponseItem.objects.filter(response_id__in=response_ids)
        .order_by("response_id", "step", "position")
        .values_list("response_id", "step", "text")
    )
    for response_id, step, text in rows:
        items.setdefault(response_id, {}).setdefault(step, []).append(text)
    return items


def _sheet_content(
    assignment: Assignment,
    items_by_step: dict[int, list[str]],
    entries: SheetEntries | None,
    rubric: Rubric,
    lang: str,
) -> SheetContent:
    response = assignment.response
    items: dict[int, list[str]] = {step: [] for step in ITEM_STEPS}
    items.update(items_by_step)
    sheet: ScoreSheet | None = getattr(assignment, "sheet", None)
    if entries is None:  # as sheet_open would create it: items the response lacks start as Blank
        entries = SheetEntries.empty(rubric)
        for step in rubric.steps:
            if step.kind == "ideas":
                present = len(items.get(step.number, []))
                for pos in range(present + 1, step.item_count + 1):
                    entries.ideas[step.number][pos - 1] = IdeaEntry(invalid="blank")
    return SheetContent(
        blind_code=assignment.blind_code,
        answers=response.shown_answers,
        items=items,
        grid_hint=_grid_hint(response),
        check_hints=_check_hints(response, rubric, lang),
        values=entries_to_cells(entries, rubric, lang),
        version=sheet.version if sheet is not None else 0,
    )


def _workbook_files(
    units: list[WorkbookUnit],
    *,
    groups: dict[int, ScoringGroup],
    users: dict[int, User],
    lang: str | None = None,
    rater: User | None = None,
) -> Iterator[tuple[WorkbookUnit, bytes]]:
    """(unit, .xlsx bytes) for each unit with open responses, reading the units' assignments,
    items and sheet entries with a few queries for all of them."""
    assignments = _open_assignments(group_ids={u.group_id for u in units}, rater=rater)
    open_rows = [(u, a) for u in units for a in assignments.get((u.rater_id, u.group_id), [])]
    items = _response_items({a.response_id for _u, a in open_rows})
    rubrics = {v: load_rubric(v) for v in {g.study.rubric_version for g in groups.values()}}
    sheets_by_rubric: dict[str, list[ScoreSheet]] = defaultdict(list)
    for u, a in open_rows:
        if hasattr(a, "sheet"):
            sheets_by_rubric[groups[u.group_id].study.rubric_version].append(a.sheet)
    entries = {}
    for version, sheets in sheets_by_rubric.items():
        entries.update(sheets_entries_get(sheets=sheets, rubric=rubrics[version]))
    for unit in units:
        rows = assignments.get((unit.rater_id, unit.group_id))
        if not rows:
            continue
        group, rater_user = groups[unit.group_id], users[unit.rater_id]
        rubric = rubrics[group.study.rubric_version]
        unit_lang = _lang(rater_user, lang)
        content = WorkbookContent(
            rater_label=unit.rater_label,
            scenario_code=group.scenario.code,
            scenario_theme=group.scenario.theme,
            lang=unit_lang,
            rubric_version=rubric.version,
            task=group.study.task_kind,
            sheets=[
                _sheet_content(
                    a,
                    items.get(a.response_id, {}),
                    entries.get(a.sheet.pk) if hasattr(a, "sheet") else None,
                    rubric,
                    unit_lang,
                )
                for a in rows
            ],
        )
        meta = WorkbookMeta(
            rater=content.rater_label,
            scenario=content.scenario_code,
            rubric=content.rubric_version,
            lang=unit_lang,
            token="",
            sheets=[(s.blind_code, s.version) for s in content.sheets],
            task=content.task,
        )
        content.token = workbook_token(rater_id=unit.rater_id, group_id=unit.group_id, meta=meta)
        yield unit, workbook_bytes(content)


def workbook_export(*, rater: User, group: ScoringGroup, lang: str | None = None) -> tuple[str, bytes]:
    """(file name, .xlsx bytes) of the rater's open responses in the group."""
    unit = next((u for u in workbook_units_get(rater=rater) if u.group_id == group.pk), None)
    if unit is None:
        raise WorkbookError(_("Nothing of this scoring group is assigned to this rater."))
    for _unit, data in _workbook_files(
        [unit], groups={group.pk: group}, users={rater.pk: rater}, lang=lang, rater=rater
    ):
        return unit.filename, data
    raise WorkbookError(_("Every response of this workbook has been submitted; nothing is left to score."))


UNITS_PER_BATCH = 40  # workbooks whose rows are read together (bounds the memory of a large study)


def workbooks_zip_write(
    *, study: Study, path: Path, progress: Callable[[int, int], None] | None = None
) -> int:
    """All open workbooks of a study in one zip file; returns how many were written."""
    units = [u for u in workbook_units_get(study=study) if u.n_open]
    groups = {
        g.pk: g
        for g in ScoringGroup.objects.filter(pk__in={u.group_id for u in units}).select_related(
            "study", "scenario"
        )
    }
    from django.contrib.auth import get_user_model

    users = {
        u.pk: u
        for u in get_user_model()
        .objects.filter(pk__in={u.rater_id for u in units})
        .select_related("rater_profile")
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        for start in range(0, len(units), UNITS_PER_BATCH):
            batch = units[start : start + UNITS_PER_BATCH]
            for unit, data in _workbook_files(batch, groups=groups, users=users):
                archive.writestr(f"{unit.rater_label}/{unit.filename}", data)
                written += 1
                if progress:
                    progress(written, len(units))
    return written


# --- import ---------------------------------------------------------------------------


class _Rollback(Exception):
    pass


def _load(data: bytes) -> Workbook:
    from openpyxl import load_workbook

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return load_workbook(io.BytesIO(data), data_only=False, keep_vba=False, keep_links=False)
    except Exception as exc:  # openpyxl raises many kinds on malformed files
        raise WorkbookRefused(_("The file could not be read as an Excel workbook (.xlsx).")) from exc


def _refused(message: str) -> ImportResult:
    return ImportResult(problems=[Problem("", "", message)])


def workbook_import(*, data: bytes, actor: User | None, rater: User | None = None) -> ImportResult:
    """Store and submit every sheet of a filled workbook, or nothing.

    ``rater``: when given (a rater uploading), the workbook must be theirs.
    """
    try:
        workbook_file_check(data, max_bytes=settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        wb = _load(data)
        meta = meta_read(wb)
    except WorkbookRefused as exc:
        return _refused(exc.message)
    owner = rater_by_label(meta.rater)
    if owner is None or (rater is not None and owner.pk != rater.pk):
        return _refused(_("This workbook was not exported for your account; upload your own workbook."))
    assignments = {
        a.blind_code: a
        for a in Assignment.rater_work.filter(
            rater=owner,
            blind_code__in=meta.blind_codes,
            archived_at__isnull=True,
            group__isnull=False,
        ).select_related("response", "group", "sheet")
    }
    group_ids = {a.group_id for a in assignments.values() if a.group_id is not None}  # group__isnull=False
    expected = ""
    if len(group_ids) == 1:
        expected = workbook_token(rater_id=owner.pk, group_id=group_ids.pop(), meta=meta)
    problems = [
        Problem(code, "", _("This response is no longer assigned to you."))
        for code in meta.blind_codes
        if code not in assignments
    ]
    if problems:
        return ImportResult(problems=problems)
    if not expected or not constant_time_compare(expected, meta.token):
        return _refused(
            _(
                "The workbook's signature does not match: it was altered, or it belongs to another rater or group."
            )
        )
    parsed, problems = workbook_read(wb, meta)
    versions = dict(meta.sheets)
    for code, assignment in assignments.items():
        problems += _state_problems(code, getattr(assignment, "sheet", None), versions[code])
    if problems:
        return ImportResult(problems=problems)
    result = ImportResult()
    try:
        with transaction.atomic():
            _store(parsed, assignments, versions, actor, result)
    except _Rollback:
        result.stored = []
    return result


def _state_problems(code: str, sheet: ScoreSheet | None, exported_version: int) -> list[Problem]:
    if sheet is None:
        return []
    if sheet.is_submitted:
        return [
            Problem(code, "", _("This response has already been submitted; a workbook cannot replace it."))
        ]
    if sheet.version != exported_version:
        return [
            Problem(
                code,
                "",
                _(
                    "This sheet was changed on the web after the workbook was downloaded; download a fresh workbook."
                ),
            )
        ]
    return []


def _store(
    parsed: list[ParsedSheet],
    assignments: dict[str, Assignment],
    versions: dict[str, int],
    actor: User | None,
    result: ImportResult,
) -> None:
    locked = {
        s.assignment_id: s
        for s in ScoreSheet.rater_work.select_for_update().filter(
            assignment_id__in=[a.pk for a in assignments.values()]
        )
    }
    for code, assignment in assignments.items():
        result.problems += _state_problems(code, locked.get(assignment.pk), versions[code])
    if result.problems:
        raise _Rollback
    for sheet in parsed:
        try:
            sheet_fill_and_submit(
                assignment=assignments[sheet.blind_code],
                actor=actor,
                changes=sheet.changes,
                source=SheetSource.WORKBOOK,
                note=IMPORT_NOTE,
            )
        except SheetError as exc:
            errors = getattr(exc, "errors", None) or getattr(exc, "missing", None)
            if errors:
                for err in errors:
                    path = getattr(err, "path", "")
                    result.problems.append(
                        Problem(
                            sheet.blind_code, sheet.cells.get(path, ""), getattr(err, "message", str(err))
                        )
                    )
            else:
                result.problems.append(Problem(sheet.blind_code, "", exc.message))
            raise _Rollback from exc
        result.stored.append(sheet.blind_code)


__all__ = [
    "IMPORT_NOTE",
    "ImportResult",
    "WorkbookError",
    "rater_label",
    "workbook_export",
    "workbook_import",
    "workbooks_zip_write",
]

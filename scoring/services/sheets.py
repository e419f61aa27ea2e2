"""Score sheets: open, save changes (autosave), submit, reopen, archive.

Every write runs in one transaction with the sheet row locked, bumps the
sheet's version (optimistic locking) and records each change in the audit trail.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.accounts.roles import is_admin
from scoring.entries import EntryError, EntryPath, apply_value, clean_value, parse_path
from scoring.models import (
    Assignment,
    AssignmentRole,
    EventKind,
    ScoreSheet,
    SheetEvent,
    SheetLevel,
    SheetSource,
    SheetStatus,
)
from scoring.selectors import sheet_entries_get
from scoring.services.sheet_open import sheet_open, sheet_open_entries
from scoring.services.sheet_rows import rows_store, rows_store_all
from scoring.signals import response_scores_changed, training_scores_changed
from studies.rubric import Missing, SheetTotals, load_rubric, sheet_totals

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class SheetError(Exception):
    """Base of the errors a sheet write can raise; ``message`` is for the user."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class SheetLocked(SheetError):
    pass


class VersionConflict(SheetError):
    def __init__(self, current_version: int):
        super().__init__(
            _("This sheet was changed elsewhere (another tab or device). Reload to see the newest scores.")
        )
        self.current_version = current_version


class BatchReused(SheetError):
    """A batch id already applied, sent again with other changes: nothing is written."""

    def __init__(self) -> None:
        super().__init__(
            _(
                "This save repeated an earlier batch's id with different changes; nothing was saved. Reload the page."
            )
        )


class SheetIncomplete(SheetError):
    def __init__(self, missing: Sequence[Missing]) -> None:
        super().__init__(_("The sheet is not complete."))
        self.missing = missing


class OtherSheet(SheetError):
    """The changes were made on another sheet than the requester's own."""

    def __init__(self, own_sheet_id: int):
        super().__init__(
            _(
                "These changes were made on another rater's sheet (the user changed in this browser); nothing was saved."
            )
        )
        self.own_sheet_id = own_sheet_id


class InvalidEntries(SheetError):
    def __init__(self, errors: list[EntryError]):
        super().__init__("; ".join(f"{e.path}: {e.message}" for e in errors))
        self.errors = errors


@dataclass(frozen=True)
class SaveResult:
    sheet: ScoreSheet
    version: int
    totals: SheetTotals
    saved_at: datetime
    changed: int
    replayed: bool = False


def sheet_apply_changes(
    *,
    sheet_id: int,
    actor: User | None,
    changes: Iterable[tuple[str, Any]],
    expected_version: int | None,
    batch_id: str = "",
    allow_submitted: bool = False,
    event_kind: str = EventKind.CHANGE,
    note: str = "",
) -> SaveResult:
    """Validate and save a batch of changes (all or none).

    ``expected_version`` is the version the client last saw; a mismatch raises
    VersionConflict and saves nothing. A batch re-sent with the same ``batch_id``
    after a lost reply is answered from the current state, not applied twice.
    """
    changes = list(changes)
    with transaction.atomic():
        sheet = ScoreSheet.all_objects.select_for_update().get(pk=sheet_id)
        return _apply_locked(
            sheet,
            actor=actor,
            changes=changes,
            expected_version=expected_version,
            batch_id=batch_id,
            allow_submitted=allow_submitted,
            event_kind=event_kind,
            note=note,
        )


def _apply_locked(
    sheet: ScoreSheet,
    *,
    actor: User | None,
    changes: list[tuple[str, Any]],
    expected_version: int | None,
    batch_id: str,
    allow_submitted: bool = False,
    event_kind: str = EventKind.CHANGE,
    note: str = "",
) -> SaveResult:
    """``sheet_apply_changes`` on a sheet row locked by the caller's transaction: the
    entries read from the sheet's copy of its rows, one UPDATE of the sheet and one audit
    event holding the batch's changes (and, on a submitted sheet, the upserts of the item
    and dimension rows the changes touched)."""
    rubric = load_rubric(sheet.rubric_version)
    digest = batch_digest(changes) if batch_id else ""
    if batch_id and sheet.last_batch_id == batch_id:
        # the same batch sent again (a lost reply) is answered from the current state; the
        # same id with other changes is refused, never half-applied nor silently dropped
        if sheet.last_batch_digest and sheet.last_batch_digest != digest:
            raise BatchReused()
        entries = sheet_entries_get(sheet=sheet, rubric=rubric)
        return SaveResult(
            sheet, sheet.version, sheet_totals(entries, rubric), sheet.updated_at, 0, replayed=True
        )
    if sheet.is_submitted and not allow_submitted:
        raise SheetLocked(_("This sheet has been submitted and is read-only."))
    if expected_version is not None and expected_version != sheet.version:
        raise VersionConflict(sheet.version)
    entries = sheet_entries_get(sheet=sheet, rubric=rubric)
    errors: list[EntryError] = []
    applied: list[tuple[EntryPath, Any, Any]] = []
    for path, value in changes:
        try:
            where = parse_path(rubric, path)
            cleaned = clean_value(rubric, entries, where, value)
        except EntryError as exc:
            errors.append(exc)
            continue
        applied.extend(apply_value(entries, where, cleaned))
    if errors:
        raise InvalidEntries(errors)
    dirty = rows_store(sheet, rubric, entries, [where for where, _old, _new in applied])
    totals = sheet_totals(entries, rubric)
    if applied:
        sheet.version += 1
    sheet.totals = totals.as_dict()
    sheet.overall = totals.overall
    sheet.last_batch_id = batch_id
    sheet.last_batch_digest = digest
    fields = {"version", "totals", "overall", "last_batch_id", "last_batch_digest", "updated_at"}
    sheet.save(update_fields=sorted(dirty | fields))  # updated_at: auto_now
    if applied:
        SheetEvent.objects.create(
            sheet=sheet,
            actor=actor,
            kind=event_kind,
            version=sheet.version,
            note=note,
            changes=[{"path": str(where), "old": old, "new": new} for where, old, new in applied],
        )
    return SaveResult(sheet, sheet.version, totals, sheet.updated_at, len(applied))


def batch_digest(changes: list[tuple[str, Any]]) -> str:
    """SHA-256 of a batch's changes, in order (what a re-sent batch id is compared by)."""
    canonical = json.dumps([[path, value] for path, value in changes], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def _scores_changed(sheet: ScoreSheet) -> None:
    """Downstream statistics follow a submitted (or reopened) sheet, after commit;
    a training sheet only moves its rater's qualification."""
    assignment = sheet.assignment
    if assignment.role == AssignmentRole.TRAINING:
        training_scores_changed.send(
            sender=ScoreSheet, rater_id=assignment.rater_id, study_id=assignment.response.study_id
        )
        return
    response_scores_changed.send(sender=ScoreSheet, response_id=assignment.response_id)


def sheet_submit(
    *,
    sheet_id: int,
    actor: User | None,
    expected_version: int | None,
    note: str = "",
    require_texts: bool = True,
) -> ScoreSheet:
    """Lock a complete sheet and write its item and dimension rows (one upsert each)
    from its copy of them. A second submit of a submitted sheet is a no-op.

    ``require_texts=False`` is for imports of files that never recorded the
    Step-2 rater texts (data_A.json); every score must still be present."""
    with transaction.atomic():
        sheet = ScoreSheet.all_objects.select_for_update().select_related("assignment").get(pk=sheet_id)
        if sheet.is_submitted:
            return sheet
        if expected_version is not None and expected_version != sheet.version:
            raise VersionConflict(sheet.version)
        rubric = load_rubric(sheet.rubric_version)
        entries = sheet_entries_get(sheet=sheet, rubric=rubric)
        totals = sheet_totals(entries, rubric)
        missing = [m for m in totals.missing if require_texts or not m.path.startswith("texts.")]
        if missing:
            raise SheetIncomplete(missing)
        rows_store_all(sheet, rubric, entries)  # what the research queries read
        sheet.status = SheetStatus.SUBMITTED
        sheet.submitted_at = timezone.now()
        sheet.version += 1
        sheet.totals = totals.as_dict()
        sheet.overall = totals.overall
        sheet.save(update_fields=["status", "submitted_at", "version", "totals", "overall", "updated_at"])
        SheetEvent.objects.create(
            sheet=sheet,
            actor=actor,
            kind=EventKind.SUBMIT,
            changes=[{"path": "overall", "old": None, "new": totals.overall}],
            version=sheet.version,
            note=note,
        )
        _scores_changed(sheet)
    return sheet


def _reason_given(reason: str | None, missing: str) -> str:
    """The reason an admin gave, stripped; SheetError(``missing``) when there is none."""
    reason = (reason or "").strip()
    if not reason:
        raise SheetError(missing)
    return reason


def _submitted_locked(sheet_id: int, refusal: str) -> ScoreSheet:
    """The submitted sheet, locked until the transaction ends; SheetError(``refusal``) for a draft."""
    sheet = ScoreSheet.all_objects.select_for_update().select_related("assignment").get(pk=sheet_id)
    if not sheet.is_submitted:
        raise SheetError(refusal)
    return sheet


def sheet_reopen(*, sheet_id: int, actor: User | None, reason: str) -> ScoreSheet:
    """Make a submitted sheet editable again (admins only, with a reason)."""
    reason = _reason_given(reason, _("Give a reason for reopening the sheet."))
    with transaction.atomic():
        sheet = _submitted_locked(sheet_id, _("Only submitted sheets can be reopened."))
        if sheet.level == SheetLevel.DIMENSIONS:
            raise SheetLocked(str(DIMENSION_LEVEL_LOCKED))
        sheet.status = SheetStatus.DRAFT
        sheet.submitted_at = None
        sheet.version += 1
        sheet.save(update_fields=["status", "submitted_at", "version", "updated_at"])
        SheetEvent.objects.create(
            sheet=sheet, actor=actor, kind=EventKind.REOPEN, version=sheet.version, note=reason
        )
        _scores_changed(sheet)
    return sheet


def sheet_correct(
    *,
    sheet_id: int,
    actor: User,
    changes: Iterable[tuple[str, Any]],
    reason: str,
    expected_version: int | None = None,
) -> SaveResult:
    """An admin corrects entries of a submitted sheet, with a reason: the rater's
    validation, a new version, one audit event listing the changed entries (kind "correct", the
    reason as note); the sheet stays submitted and complete, and agreement, calibration
    routing and final scores are recomputed as after a submit or a reopen."""
    reason = _reason_given(reason, _("Give a reason for the correction."))
    if not is_admin(actor):
        raise SheetError(_("Only an admin can correct a submitted sheet."))
    changes = list(changes)
    if not changes:
        raise SheetError(_("Nothing to correct."))
    with transaction.atomic():
        sheet = _submitted_locked(
            sheet_id, _("Only submitted sheets are corrected here; a draft is changed by its rater.")
        )
        if sheet.level == SheetLevel.DIMENSIONS:
            raise SheetLocked(str(DIMENSION_LEVEL_LOCKED))
        rubric = load_rubric(sheet.rubric_version)
        missing_before = {
            m.path for m in sheet_totals(sheet_entries_get(sheet=sheet, rubric=rubric), rubric).missing
        }
        result = _apply_locked(
            sheet,
            actor=actor,
            changes=changes,
            expected_version=expected_version,
            batch_id="",
            allow_submitted=True,
            event_kind=EventKind.CORRECT,
            note=reason,
        )
        if not result.changed:
            raise SheetError(_("The new value is the sheet's current value; nothing was changed."))
        emptied = [m for m in result.totals.missing if m.path not in missing_before]
        if emptied:
            raise SheetIncomplete(emptied)  # a submitted sheet stays complete (rolled back)
        _scores_changed(sheet)
    return result


def sheet_fill_and_submit(
    *,
    assignment: Assignment,
    actor: User | None,
    changes: list[tuple[str, Any]],
    source: str,
    note: str,
    require_texts: bool = True,
) -> ScoreSheet:
    """Store a whole sheet from an import (JSON scores or an offline workbook) and submit it.

    Runs inside the caller's transaction so that a multi-sheet import is all-or-nothing.
    """
    sheet = sheet_open(assignment=assignment, actor=actor)
    if sheet.is_submitted:
        raise SheetLocked(_("A submitted sheet already exists for this assignment."))
    sheet_apply_changes(
        sheet_id=sheet.pk,
        actor=actor,
        changes=changes,
        expected_version=None,
        event_kind=EventKind.IMPORT,
        note=note,
    )
    ScoreSheet.all_objects.filter(pk=sheet.pk).update(source=source)
    return sheet_submit(
        sheet_id=sheet.pk, actor=actor, expected_version=None, note=note, require_texts=require_texts
    )


# a sheet of dimension scores alone has no items a rater could classify again
DIMENSION_LEVEL_LOCKED = gettext_lazy(
    "This sheet holds dimension scores alone, imported from the study's Excel layout: it cannot be "
    "reopened or corrected here. Withdraw its assignment and score the response again instead."
)


def sheet_fill_dimensions_and_submit(
    *,
    assignment: Assignment,
    actor: User | None,
    dimensions: dict[str, int],
    note: str,
) -> ScoreSheet:
    """Store a sheet of dimension scores alone (the study's Excel layout holds no more:
    ``scoring.services.release_import``) and submit it: every dimension of the rubric is
    entered, none computed from items, and the rater's texts are not asked for.

    Runs inside the caller's transaction so that a multi-sheet import is all-or-nothing."""
    sheet = sheet_open(assignment=assignment, actor=actor)
    if sheet.is_submitted or sheet.version > 0:
        raise SheetLocked(_("A sheet with scores already exists for this assignment."))
    with transaction.atomic():
        sheet = ScoreSheet.all_objects.select_for_update().get(pk=sheet.pk)
        sheet.level = SheetLevel.DIMENSIONS
        sheet.source = SheetSource.IMPORT
        sheet.entry_rows = {"items": [], "dims": dict(dimensions)}
        sheet.version += 1
        sheet.save(update_fields=["level", "source", "entry_rows", "version", "updated_at"])
        SheetEvent.objects.create(
            sheet=sheet,
            actor=actor,
            kind=EventKind.IMPORT,
            changes=[
                {"path": f"dims.{key}", "old": None, "new": value}
                for key, value in sorted(dimensions.items())
            ],
            version=sheet.version,
            note=note,
        )
    return sheet_submit(sheet_id=sheet.pk, actor=actor, expected_version=None, note=note, require_texts=False)


__all__ = [
    "BatchReused",
    "InvalidEntries",
    "OtherSheet",
    "SaveResult",
    "SheetError",
    "SheetIncomplete",
    "SheetLocked",
    "SheetSource",
    "VersionConflict",
    "sheet_apply_changes",
    "sheet_correct",
    "sheet_fill_and_submit",
    "sheet_fill_dimensions_and_submit",
    "sheet_open",
    "sheet_open_entries",
    "sheet_reopen",
    "sheet_submit",
]

"""A study's training set: gold responses copied out of live work, with their reference.

A training response is a copy of a scored response (new blind code, research ID with a
``~T`` suffix) whose status is Withdrawn, so every live path (assignment, agreement,
final scores, research output) leaves it out; its reference is the mean of the expert
sheets the admin chose. Trainees get training assignments on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from django.db import transaction
from django.utils.translation import gettext as _

from scoring.models import Assignment, AssignmentRole, ScoreSheet, SheetStatus
from studies.models import Response, ResponseItem, ResponseStatus, Study
from studies.rubric import load_rubric
from studies.services.audit import audit_record
from training.feedback import reference_mean
from training.models import REFERENCE_MEAN_OF, TrainingResponse
from training.selectors.qualification import training_open_to

if TYPE_CHECKING:
    from django.contrib.auth.models import User

DEFAULT_GOLD = "A05_FS10"  # the released, fully scored response (H01 and H02)
_COPIED = (
    "scenario_id", "model_id", "condition_id", "step1", "step2", "step3", "step4", "step5", "step6",
    "source", "step1_blank_items", "step3_blank_items", "grid", "grid_errors", "implied_correctly_used",
    "parse_notes",
)  # fmt: skip


class TrainingError(Exception):
    """A training-set request that cannot be carried out; ``message`` is for the user."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _reference_sheets(*, response: Response, rater_codes: Sequence[str]) -> list[ScoreSheet]:
    sheets = ScoreSheet.objects.filter(
        assignment__response=response,
        status=SheetStatus.SUBMITTED,
        assignment__role__in=[AssignmentRole.PRIMARY, AssignmentRole.CALIBRATION],
    ).select_related("assignment__rater__rater_profile")
    if rater_codes:
        wanted = {c.strip() for c in rater_codes if c.strip()}
        sheets = sheets.filter(assignment__archived_at__isnull=True)
        chosen = [
            s
            for s in sheets
            if {getattr(getattr(s.assignment.rater, "rater_profile", None), "rater_code", None),
                s.assignment.rater.get_username()} & wanted
        ]  # fmt: skip
        found = {
            getattr(getattr(s.assignment.rater, "rater_profile", None), "rater_code", None) for s in chosen
        }
        found |= {s.assignment.rater.get_username() for s in chosen}
        if unknown := sorted(wanted - found):
            raise TrainingError(
                _("No submitted sheet of %(raters)s for %(response)s.")
                % {"raters": ", ".join(unknown), "response": response.research_id}
            )
        return chosen
    pair = list(sheets.filter(assignment__role=AssignmentRole.PRIMARY, assignment__archived_at__isnull=True))
    open_primary = Assignment.objects.filter(
        response=response, role=AssignmentRole.PRIMARY, archived_at__isnull=True
    ).exclude(sheet__status=SheetStatus.SUBMITTED)
    if pair and open_primary.exists():
        # the mean of "its pair" would be one rater's live sheet of a response still being scored,
        # shown in full to every trainee (hostile pass 25)
        raise TrainingError(
            _(
                "%(id)s is still being scored (a sheet of its pair is not submitted): mark it as gold once "
                "both have submitted, or name the reference raters."
            )
            % {"id": response.research_id}
        )
    return pair


def _sheet_name(sheet: ScoreSheet) -> str:
    rater = sheet.assignment.rater
    return getattr(getattr(rater, "rater_profile", None), "rater_code", None) or rater.get_username()


def training_response_add(
    *,
    study: Study,
    research_id: str,
    rater_codes: Sequence[str] = (),
    actor: User | None = None,
) -> TrainingResponse:
    """Mark a scored response as gold: copy it into the training set with the mean of the
    chosen submitted sheets (by rater code or username; none: its primary pair) as the
    reference. Without a submitted reference sheet nothing changes."""
    research_id = (research_id or "").strip()
    source = Response.objects.filter(
        study=study, research_id=research_id, training__isnull=True, is_training_copy=False
    ).first()
    if source is None:
        raise TrainingError(_("The study has no response %(id)s.") % {"id": research_id or "—"})
    if source.held:
        # its text has not passed the review gate: a trainee would read what the blind holds back
        # (hostile pass 21: a research ID in the text reached a trainee)
        raise TrainingError(
            _("%(id)s is held for review: release it on the held responses page first.") % {"id": research_id}
        )
    sheets = _reference_sheets(response=source, rater_codes=rater_codes)
    if not sheets:
        raise TrainingError(
            _("%(id)s has no submitted sheet to serve as the reference; a training response needs one.")
            % {"id": research_id}
        )
    rubric = load_rubric(study.rubric_version)
    shape = [(d.key, d.min, d.max) for d in rubric.dimensions]  # edited texts do not matter
    if any(
        [(d.key, d.min, d.max) for d in load_rubric(s.rubric_version).dimensions] != shape for s in sheets
    ):
        raise TrainingError(
            _("The reference sheets were scored with another rubric version than the study's.")
        )
    reference = reference_mean([s.totals for s in sheets], rubric)
    with transaction.atomic():
        n = TrainingResponse.objects.filter(source=source).count() + 1
        copy = Response.objects.create(
            study=study,
            research_id=f"{source.research_id}~T{n}",
            status=ResponseStatus.WITHDRAWN,  # never live
            is_training_copy=True,
            **{name: getattr(source, name) for name in _COPIED},
        )
        ResponseItem.objects.bulk_create(
            ResponseItem(response=copy, step=i.step, position=i.position, text=i.text)
            for i in ResponseItem.objects.filter(response=source)
        )
        training = TrainingResponse.objects.create(
            study=study,
            response=copy,
            source=source,
            reference=reference,
            reference_note=_note_cut(REFERENCE_MEAN_OF + ", ".join(_sheet_name(s) for s in sheets)),
            created_by=actor,
        )
        training.reference_sheets.set(sheets)
        audit_record(
            actor=actor,
            action="training.gold_add",
            target=copy,
            study=study,
            changes={"source": source.research_id, "reference": training.reference_note},
        )
    return training


def _note_cut(note: str) -> str:
    """The reference's note within its column (long usernames: a 500 on PostgreSQL, hostile pass 21)."""
    limit = TrainingResponse._meta.get_field("reference_note").max_length or len(note)
    return note if len(note) <= limit else note[: limit - 1] + "…"


def training_set_add_default(*, study: Study, actor: User | None = None) -> TrainingResponse:
    """The default training set: a copy of the released A05_FS10 with the mean of H01
    and H02 (import data_A.json into the study first)."""
    if TrainingResponse.objects.filter(study=study, source__research_id=DEFAULT_GOLD).exists():
        raise TrainingError(_("%(id)s is already in the training set.") % {"id": DEFAULT_GOLD})
    return training_response_add(study=study, research_id=DEFAULT_GOLD, rater_codes=(), actor=actor)


def training_enroll(*, rater: User, study: Study) -> int:
    """Give the rater a training assignment on every training response of the study they
    have not scored yet (never the copy of a response they score live); returns how many
    were created. Idempotent."""
    created = 0
    with transaction.atomic():
        for training in training_open_to(rater=rater, study=study):
            has = Assignment.objects.filter(
                rater=rater, response_id=training.response_id, role=AssignmentRole.TRAINING
            ).exists()
            if not has:
                Assignment.objects.create(
                    rater=rater,
                    response_id=training.response_id,
                    role=AssignmentRole.TRAINING,
                    created_by=rater,
                )
                created += 1
    return created

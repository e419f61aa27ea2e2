"""Qualification on a study's training set, and the admin's override (with a reason)."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from scoring.models import Assignment, AssignmentRole, ScoreSheet, SheetStatus
from studies.models import Study
from studies.rubric import load_rubric
from studies.services.audit import audit_changes, audit_record
from training.feedback import qualification_count, training_pcc
from training.models import RaterQualification
from training.selectors.training import qualification_threshold, training_settings_of
from training.services.training_set import TrainingError

if TYPE_CHECKING:
    from django.contrib.auth.models import User

ARCHIVED_RETRY = gettext_noop("training: scored again")  # stored in English, shown translated


def qualification_recompute(*, rater_id: int, study_id: int) -> RaterQualification:
    """Count the rater's submitted training sheets of the study and the different
    training responses on which one reached the threshold; qualified once enough did.
    The date of a first qualification is kept while it holds."""
    study = Study.objects.get(pk=study_id)
    settings = training_settings_of(study=study)
    threshold = qualification_threshold(study=study, settings=settings)
    sheets = ScoreSheet.objects.filter(
        assignment__rater_id=rater_id,
        assignment__role=AssignmentRole.TRAINING,
        assignment__response__training__study=study,
        assignment__response__training__archived_at__isnull=True,
        status=SheetStatus.SUBMITTED,
    ).values_list(
        "assignment__response_id", "rubric_version", "totals", "assignment__response__training__reference"
    )
    passed: set[int] = set()
    attempts = 0
    for response_id, version, totals, reference in sheets:
        attempts += 1
        r, _reason = training_pcc(totals=totals, reference=reference, rubric=load_rubric(version))
        if r is not None and r >= threshold:
            passed.add(response_id)
    with transaction.atomic():
        q, _created = RaterQualification.objects.select_for_update().get_or_create(
            rater_id=rater_id, study=study
        )
        q.passed, q.attempts = len(passed), attempts
        if qualification_count(passed_responses=passed, required=settings.required_sheets):
            q.qualified_at = q.qualified_at or timezone.now()
        else:
            q.qualified_at = None
        q.save()
    return q


def study_qualifications_recompute(*, study: Study) -> int:
    """After a change of the threshold or the required number: every trainee again."""
    raters = set(
        Assignment.objects.filter(role=AssignmentRole.TRAINING, response__training__study=study).values_list(
            "rater_id", flat=True
        )
    )
    for rater_id in raters:
        qualification_recompute(rater_id=rater_id, study_id=study.pk)
    return len(raters)


def training_settings_update(
    *,
    study: Study,
    threshold: Decimal | None,
    required_sheets: int,
    actor: User | None = None,
) -> None:
    """Change the study's qualification threshold and required sheets (audited as
    ``training.settings``) and recompute every trainee's qualification."""
    if required_sheets < 1:
        raise TrainingError(_("At least one training sheet is required."))
    if threshold is not None and not Decimal(-1) <= threshold <= Decimal(1):
        raise TrainingError(_("A PCC threshold lies between -1 and 1."))
    with transaction.atomic():
        settings = training_settings_of(study=study)
        before = {"threshold": _decimal_text(settings.threshold), "required_sheets": settings.required_sheets}
        settings.threshold, settings.required_sheets = threshold, required_sheets
        settings.save()
        after = {"threshold": _decimal_text(threshold), "required_sheets": required_sheets}
        changes = audit_changes(before=before, after=after)
        if changes:
            audit_record(
                actor=actor, action="training.settings", target=settings, study=study, changes=changes
            )
        study_qualifications_recompute(study=study)


def _decimal_text(value: Decimal | None) -> str | None:
    return None if value is None else str(Decimal(value).quantize(Decimal("0.001")))


def qualification_override(
    *, rater: User, study: Study, actor: User | None, reason: str
) -> RaterQualification:
    """An admin lets a rater score live work without (or before) qualifying; the
    reason, the admin and the time are kept."""
    reason = (reason or "").strip()
    if not reason:
        raise TrainingError(_("Give a reason for letting this rater through."))
    if not get_user_model().objects.filter(pk=rater.pk, is_active=True).exists():
        raise TrainingError(_("This user is not active."))
    with transaction.atomic():
        q, _created = RaterQualification.objects.select_for_update().get_or_create(rater=rater, study=study)
        before = q.override_reason
        q.override_reason, q.override_by, q.override_at = reason, actor, timezone.now()
        q.save()
        # the row keeps the latest reason; the trail keeps every one (hostile pass 13)
        audit_record(
            actor=actor,
            action="training.override",
            target=rater,
            study=study,
            changes={"override_reason": [before, reason]},
            reason=reason,
        )
    return q


def qualification_override_revoke(
    *, rater: User, study: Study, actor: User, reason: str
) -> RaterQualification:
    reason = (reason or "").strip()
    if not reason:
        raise TrainingError(_("Give a reason."))
    with transaction.atomic():
        q, _created = RaterQualification.objects.select_for_update().get_or_create(rater=rater, study=study)
        q.override_reason = _("Revoked by %(user)s: %(reason)s") % {
            "user": actor.get_username(),
            "reason": reason,
        }
        q.override_by, q.override_at = actor, None
        q.save()
        audit_record(
            actor=actor,
            action="training.override_revoked",
            target=rater,
            study=study,
            changes={},
            reason=reason,
        )
    return q


def training_retry(*, assignment: Assignment, actor: User | None) -> Assignment:
    """Score a training response again after its feedback: the submitted sheet stays on
    the archived assignment (and still counts as an attempt); a fresh one starts."""
    if assignment.role != AssignmentRole.TRAINING:
        raise TrainingError(_("Only training responses can be scored again."))
    sheet = ScoreSheet.objects.filter(assignment=assignment).first()
    if sheet is None or not sheet.is_submitted:
        raise TrainingError(_("Submit this training sheet first."))
    with transaction.atomic():
        Assignment.objects.filter(pk=assignment.pk, archived_at__isnull=True).update(
            archived_at=timezone.now(), archived_reason=ARCHIVED_RETRY
        )
        return Assignment.objects.create(
            rater=assignment.rater,
            response=assignment.response,
            role=AssignmentRole.TRAINING,
            created_by=actor,
        )

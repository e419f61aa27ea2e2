"""Why a calibration decided as it did: written by the calibrator (after submitting) or an
admin, audited with the text it replaced (a later edit never loses the earlier one)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from calibration.models import CalibrationDecision
from calibration.services.calibration import CalibrationError
from core.accounts.roles import is_admin
from scoring.models import Assignment, AssignmentRole, ScoreSheet
from studies.models import Response
from studies.services.audit import audit_record

if TYPE_CHECKING:
    from django.contrib.auth.models import User

REASON_MAX_LENGTH = 2000


def calibration_decision_record(*, response_id: int, actor: User, reason: str) -> CalibrationDecision:
    """The calibrator (after submitting) or an admin writes why the calibration
    decided as it did. The first-pass sheets are not touched."""
    reason = (reason or "").strip()
    if not reason:
        raise CalibrationError(_("Write a short reason."))
    if len(reason) > REASON_MAX_LENGTH:
        raise CalibrationError(_("Keep the reason under 2000 characters."))
    with transaction.atomic():
        assignment = (
            Assignment.objects.select_for_update()
            .filter(response_id=response_id, role=AssignmentRole.CALIBRATION, archived_at__isnull=True)
            .first()
        )
        if assignment is None:
            raise CalibrationError(_("This response has no calibration."))
        sheet = ScoreSheet.objects.filter(assignment=assignment).first()
        is_own = assignment.rater_id == actor.pk and sheet is not None and sheet.is_submitted
        if not (is_admin(actor) or is_own):
            raise CalibrationError(
                _("Only the calibrator, after submitting, or an admin can record the decision.")
            )
        decision, _created = CalibrationDecision.objects.get_or_create(
            response_id=response_id, defaults={"assignment": assignment}
        )
        before = "" if _created else decision.reason
        decision.assignment = assignment
        decision.reason = reason
        decision.decided_by = actor
        decision.decided_at = timezone.now()
        decision.save(update_fields=["assignment", "reason", "decided_by", "decided_at"])
        if before != reason:
            response = Response.objects.select_related("study").get(pk=response_id)
            audit_record(
                actor=actor,
                action="calibration.decision",
                target=response,
                study=response.study,
                changes={"reason": [before, reason]},
            )
    return decision

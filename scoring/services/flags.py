"""Raters flag broken or unreadable responses; admins withdraw the response from the
study (its status becomes "withdrawn", its assignments are archived with the reason:
nothing is deleted; so do the pairs of a pairwise study that show it) or dismiss the flag."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from scoring.models import Assignment, FlagResolution, ResponseFlag
from scoring.services.assignments import assignment_archive
from studies.models import Response, ResponseStatus
from studies.services.audit import audit_record
from studies.services.review import responses_mark_withdrawn

if TYPE_CHECKING:
    from django.contrib.auth.models import User

MAX_NOTE = 2000


class FlagError(ValueError):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def response_flag_create(*, assignment: Assignment, note: str) -> ResponseFlag:
    """The rater of ``assignment`` reports its response as broken, with a note. The same report
    sent again while the first is open (a double click, a resend) is that flag, not another."""
    note = (note or "").strip()
    if not note:
        raise FlagError(_("Say what is wrong with the response."))
    if len(note) > MAX_NOTE:
        raise FlagError(_("The note is longer than %(n)s characters.") % {"n": MAX_NOTE})
    with transaction.atomic():
        # one report of this rater's at a time: a second request waits, then finds the first
        Assignment.objects.select_for_update().filter(pk=assignment.pk).first()
        same = ResponseFlag.objects.filter(
            response_id=assignment.response_id, rater_id=assignment.rater_id, note=note, resolution=""
        ).first()
        if same is not None:
            return same
        flag = ResponseFlag.objects.create(
            response_id=assignment.response_id, rater_id=assignment.rater_id, note=note
        )
        audit_record(
            actor=assignment.rater,
            action="response.flag",
            target=flag,
            study=assignment.response.study,
            changes={"note": note},
        )
    return flag


def response_flag_resolve(
    *, flag_id: int, actor: User | None, withdraw: bool, note: str = ""
) -> ResponseFlag:
    """Withdraw the flagged response (every open flag on it is resolved with it; audited as a
    withdrawal from the held responses page is) or dismiss this flag."""
    note = (note or "").strip()
    if withdraw and not note:
        raise FlagError(_("Give a reason for withdrawing the response."))
    with transaction.atomic():
        flag = ResponseFlag.objects.select_for_update().get(pk=flag_id)
        if flag.resolution:
            raise FlagError(_("This flag has already been handled."))
        now = timezone.now()
        if not withdraw:
            flag.resolution, flag.resolved_by, flag.resolved_at, flag.resolution_note = (
                FlagResolution.DISMISSED, actor, now, note,
            )  # fmt: skip
            flag.save(update_fields=["resolution", "resolved_by", "resolved_at", "resolution_note"])
            audit_record(
                actor=actor,
                action="response.flag_dismiss",
                target=flag,
                study=Response.objects.get(pk=flag.response_id).study,
                reason=note,
            )
            return flag
        response = Response.objects.select_for_update().select_related("study").get(pk=flag.response_id)
        responses_mark_withdrawn(responses=[response], actor=actor, reason=note, flag_id=flag.pk)
        # The pairs of a pairwise study that show it as text A or B go with it: each compared a
        # text now withdrawn (they are kept, withdrawn, as it is; building pairs again pairs its
        # replacement).
        pairs = list(
            Response.objects.select_for_update()
            .filter(Q(pair__left=response) | Q(pair__right=response))
            .exclude(status=ResponseStatus.WITHDRAWN)
            .select_related("study")
        )
        if pairs:
            shown = _("It shows %(id)s, withdrawn (flagged as broken): %(note)s") % {
                "id": response.research_id,
                "note": note,
            }
            responses_mark_withdrawn(responses=pairs, actor=actor, reason=shown, flag_id=flag.pk)
        withdrawn = [response, *pairs]
        reason = _("Response withdrawn (flagged as broken): %(note)s") % {"note": note}
        for assignment in Assignment.objects.filter(response__in=withdrawn, archived_at__isnull=True):
            assignment_archive(assignment=assignment, actor=actor, reason=reason)
        ResponseFlag.objects.filter(response__in=withdrawn, resolution="").update(
            resolution=FlagResolution.WITHDRAWN, resolved_by=actor, resolved_at=now, resolution_note=note
        )
        flag.refresh_from_db()
        return flag

"""The review gate: an administrator releases a held response to raters, or withdraws it."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core.accounts.roles import is_admin
from studies.models import Response, ResponseStatus
from studies.services.audit import audit_record
from studies.signals import response_released


class ReviewError(Exception):
    """A release or withdrawal that cannot be done; ``message`` is for the admin."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Released:
    response: Response
    assignments: int  # made by the arrival path (a paired scenario group takes it at once)


def _held_response(*, response_id: int, actor) -> Response:
    if actor is None or not is_admin(actor):
        raise ReviewError(_("Only an administrator may release or withdraw a held response."))
    response = Response.objects.select_for_update().filter(pk=response_id).first()
    if response is None:
        raise ReviewError(_("This response does not exist."))
    if response.status == ResponseStatus.WITHDRAWN:
        raise ReviewError(_("This response was withdrawn."))
    if not response.held:
        raise ReviewError(_("This response is not held: it is already released to raters."))
    return response


def response_release(*, response_id: int, actor) -> Released:
    """Release a held response to raters: from now on it is assigned as any arriving
    response is (the receivers of ``response_released`` run the same assignment service
    as on arrival: a scenario group that has its pair takes it at once). Audited."""
    with transaction.atomic():
        response = _held_response(response_id=response_id, actor=actor)
        response.held = False
        response.released_at = timezone.now()
        response.released_by = actor
        response.save(update_fields=["held", "released_at", "released_by", "updated_at"])
        audit_record(
            actor=actor,
            action="response.released",
            target=response,
            study=response.study,
            changes={"held": [True, False], "hold_reasons": [r.get("code") for r in response.hold_reasons]},
        )
        results = response_released.send(sender=Response, response=response, actor=actor)
    made = 0
    for _receiver, value in results:
        if isinstance(value, int):
            made += value
    return Released(response=response, assignments=made)


def response_withdraw(*, response_id: int, actor, reason: str = "") -> Response:
    """Withdraw a held response: it never reaches raters and leaves every pool (plans,
    counts, the study's checklist); it is kept, with its texts, for the record. Audited."""
    with transaction.atomic():
        response = _held_response(response_id=response_id, actor=actor)
        old_status = response.status
        response.status = ResponseStatus.WITHDRAWN
        response.save(update_fields=["status", "updated_at"])
        audit_record(
            actor=actor,
            action="response.withdrawn",
            target=response,
            study=response.study,
            changes={"status": [old_status, ResponseStatus.WITHDRAWN.value]},
            reason=(reason or "").strip(),
        )
    return response


def response_research_id_release(*, response: Response, actor) -> str:
    """A withdrawn response gives up its research ID, so that its cell (scenario, model,
    condition) can be generated again: it is kept, with its texts and history, under the
    ID with a ``~W1`` suffix (the first number free; training copies use ``~T``). Audited;
    runs in the caller's transaction. Returns the new ID."""
    if response.status != ResponseStatus.WITHDRAWN:
        raise ReviewError(_("Only a withdrawn response gives up its research ID."))
    old = response.research_id
    taken = set(
        Response.objects.filter(study_id=response.study_id, research_id__startswith=f"{old}~W").values_list(
            "research_id", flat=True
        )
    )
    n = 1
    while f"{old}~W{n}" in taken:
        n += 1
    response.research_id = f"{old}~W{n}"
    response.save(update_fields=["research_id", "updated_at"])
    audit_record(
        actor=actor,
        action="response.research_id_released",
        target=response,
        study=response.study,
        changes={"research_id": [old, response.research_id]},
    )
    return response.research_id

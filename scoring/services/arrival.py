"""Making assignments, the one rule every path follows (a rater gets a response once, never in two
roles, never one they trained on a copy of), and the arrival path: a new or released response goes
to its scenario group's pair. ``scoring.services.assignments`` builds pairs, plans and
reassignments on it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from scoring.models import Assignment, AssignmentRole, ScoringGroup
from scoring.selectors import response_group_get
from scoring.selectors.qualification import raters_trained_on
from studies.models import Response, ResponseStatus

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class AssignmentError(Exception):
    """An assignment request that cannot be carried out; ``message`` is for the admin."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def paired_outside_groups() -> QuerySet[Assignment, Mapping[str, object]]:
    """Responses a pair was given one by one (``responses_assign_pair``): they keep that pair."""
    return Assignment.objects.filter(
        role=AssignmentRole.PRIMARY, archived_at__isnull=True, group__isnull=True
    ).values("response_id")


def assignments_create(
    *,
    wanted: Sequence[tuple[Any, Response, ScoringGroup | None]],
    actor: User | None,
    role: str,
) -> list[Assignment]:
    """An active assignment for each (rater, response, group) of ``wanted`` unless the rater has
    one for the response already (then moved into ``group``); the new ones made in one statement.
    Refused whole when a rater has a response in another role or trained on a copy of it."""
    if not wanted:
        return []
    response_ids = {response.pk for _rater, response, _group in wanted}
    existing = {
        (a.rater_id, a.response_id): a
        for a in Assignment.objects.filter(
            rater_id__in={rater.pk for rater, _response, _group in wanted},
            response_id__in=response_ids,
            archived_at__isnull=True,
        )
    }
    trained = raters_trained_on(response_ids=response_ids) if role != AssignmentRole.TRAINING else {}
    new: dict[tuple[int, int], Assignment] = {}
    for rater, response, group in wanted:
        if (found := existing.get((rater.pk, response.pk))) is not None:
            if found.role != role:
                raise AssignmentError(
                    _("%(user)s already has this response in another role.") % {"user": rater.get_username()}
                )
            if group is not None and found.group_id != group.pk:
                found.group = group
                found.save(update_fields=["group"])
            continue
        if rater.pk in trained.get(response.pk, ()):
            # they saw the reference sheet of this very response in training
            raise AssignmentError(
                _(
                    "%(user)s trained on a copy of %(response)s and has seen its reference scores; they may not score it live. Choose another rater."
                )
                % {"user": rater.get_username(), "response": response.research_id}
            )
        new.setdefault(
            (rater.pk, response.pk),
            Assignment(rater=rater, response=response, group=group, role=role, created_by=actor),
        )
    return Assignment.objects.bulk_create(new.values())


def responses_assign_to_groups(*, responses: Sequence[Response], actor: User | None = None) -> dict[int, int]:
    """Assign new (or newly released) responses to the pairs of their scenario groups, where
    the group has one; a response held for review or withdrawn gets none, nor one a pair was
    given by itself, nor one a rater of the pair trained on a copy of (it waits, unassigned, for
    a pair the admin chooses: a release is never refused for it). Called on arrival and on
    release (many at once: a bulk release); returns, per response id, the number of
    assignments created."""
    live = [r for r in responses if not r.held and r.status != ResponseStatus.WITHDRAWN]
    apart = set(paired_outside_groups().filter(response_id__in=[r.pk for r in live]).values_list(flat=True))
    trained = raters_trained_on(response_ids={r.pk for r in live})
    groups: dict[tuple[int, int, int], ScoringGroup | None] = {}
    wanted: list[tuple[Any, Response, ScoringGroup | None]] = []
    for response in live:
        key = (response.study_id, response.scenario_id, response.condition_id)
        if key not in groups:
            groups[key] = response_group_get(response=response)
        group = groups[key]
        if group is None or response.pk in apart:
            continue
        if trained.get(response.pk, set()) & {group.rater_a_id, group.rater_b_id}:
            continue
        wanted += [(group.rater_a, response, group), (group.rater_b, response, group)]
    with transaction.atomic():
        made = Counter(
            a.response_id for a in assignments_create(wanted=wanted, actor=actor, role=AssignmentRole.PRIMARY)
        )
    return {response.pk: made[response.pk] for response in responses}


def response_assign_to_group(*, response: Response, actor: User | None = None) -> int:
    """``responses_assign_to_groups`` for one response."""
    return responses_assign_to_groups(responses=[response], actor=actor)[response.pk]

"""Assigning responses to raters: rater pairs per scenario group, balanced plans,
reassignment and archiving.

As in the study, a fixed pair of raters scores every response of one scenario
under one condition (a ScoringGroup). Nothing here deletes an assignment or a
sheet: replaced assignments are archived with a reason, and an archived sheet
gets an ``archive`` event in its audit trail.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Count, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from core.accounts.roles import is_rater
from scoring.models import Assignment, AssignmentRole, EventKind, ScoreSheet, ScoringGroup, SheetEvent
from scoring.selectors import group_active_get
from scoring.selectors.qualification import raters_not_qualified
from scoring.services.arrival import AssignmentError as AssignmentError  # re-exported: the pages catch it
from scoring.services.arrival import (
    assignments_create,
    paired_outside_groups,
)
from studies.models import Condition, Response, ResponseStatus, Scenario, Study
from studies.services.audit import audit_record

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def _check_pair(rater_a: User, rater_b: User, *, study: Study) -> None:
    if rater_a is None or rater_b is None or rater_a.pk == rater_b.pk:
        raise AssignmentError(_("Choose two different raters."))
    for user in (rater_a, rater_b):
        if not is_rater(user):
            raise AssignmentError(_("%(user)s is not a rater.") % {"user": user.get_username()})
    _check_qualified([rater_a, rater_b], study=study)


def _check_qualified(raters: Sequence[User], *, study: Study) -> None:
    """Live work goes only to raters who qualified on the study's training set."""
    if unqualified := raters_not_qualified(study=study, raters=raters):
        names = ", ".join(u.get_username() for u in unqualified)
        raise AssignmentError(
            _(
                "Not yet qualified on this study's training set: %(users)s. They must pass the training first, or an administrator lets them through with a reason."
            )
            % {"users": names}
        )


def _group_responses(group: ScoringGroup) -> QuerySet[Response]:
    """The group's responses raters may get: released (not held for review), not withdrawn."""
    return (
        Response.objects.filter(
            study=group.study, scenario=group.scenario, condition=group.condition, held=False
        )
        .exclude(status=ResponseStatus.WITHDRAWN)
        .exclude(pk__in=paired_outside_groups())
    )


def _assign(
    *,
    rater: User,
    response: Response,
    group: ScoringGroup | None,
    actor: User | None,
    role: str,
) -> Assignment | None:
    """Create an active assignment unless the rater already has one for the response."""
    made = assignments_create(wanted=[(rater, response, group)], actor=actor, role=role)
    return made[0] if made else None


def group_sync_assignments(*, group: ScoringGroup, actor: User | None = None) -> int:
    """Give both raters of an active group every response of the group they lack
    (responses generated or imported after the pair was assigned). Idempotent;
    returns the number of assignments created."""
    if group.archived_at is not None:
        return 0
    created = 0
    with transaction.atomic():
        for response in _group_responses(group):
            for rater in (group.rater_a, group.rater_b):
                if _assign(
                    rater=rater, response=response, group=group, actor=actor, role=AssignmentRole.PRIMARY
                ):
                    created += 1
    return created


def responses_assign_pair(
    *,
    study: Study,
    responses: Sequence[Response],
    rater_a: User,
    rater_b: User,
    actor: User | None,
    reason: str,
) -> int:
    """Give each of ``responses`` (of ``study``, outside any pair so far) to the pair as primary
    raters, outside a scoring group (a judge's scoring plan: the responses a pair scores next),
    all or nothing, audited; a pair given later to their scenario and condition leaves them to
    this one. Returns the number of assignments created."""
    _check_pair(rater_a, rater_b, study=study)
    created = 0
    with transaction.atomic():
        for response in responses:
            taken = Assignment.objects.filter(
                response=response, role=AssignmentRole.PRIMARY, archived_at__isnull=True
            ).exists()
            if (
                response.study_id != study.pk
                or response.held
                or response.status == ResponseStatus.WITHDRAWN
                or taken
            ):
                raise AssignmentError(
                    _("%(response)s is no longer free for a pair; make a new plan.")
                    % {"response": response.research_id}
                )
            for rater in (rater_a, rater_b):
                created += bool(
                    _assign(
                        rater=rater, response=response, group=None, actor=actor, role=AssignmentRole.PRIMARY
                    )
                )
        audit_record(
            actor=actor, action="assignment.pair_responses", target=study, study=study, reason=reason,
            changes={"pair": [rater_a.username, rater_b.username], "responses": [r.research_id for r in responses]},
        )  # fmt: skip
    return created


def study_sync_assignments(*, study: Study, actor: User | None = None) -> int:
    """Run ``group_sync_assignments`` for every active group of the study."""
    return sum(
        group_sync_assignments(group=g, actor=actor)
        for g in ScoringGroup.objects.filter(study=study, archived_at__isnull=True).select_related(
            "rater_a", "rater_b", "study", "scenario", "condition"
        )
    )


def group_for_pair(
    *,
    study: Study,
    scenario: Scenario,
    condition: Condition,
    rater_a: User,
    rater_b: User,
    actor: User | None = None,
) -> tuple[ScoringGroup | None, bool]:
    """The scenario and condition's active scoring group when this pair holds it, else a new
    one for the pair when there is none (``True``: created); ``None`` when another pair holds
    it (the one rule of assigning and of the score import)."""
    group = group_active_get(study_id=study.pk, scenario_id=scenario.pk, condition_id=condition.pk)
    if group is None:
        created = ScoringGroup.objects.create(
            study=study,
            scenario=scenario,
            condition=condition,
            rater_a=rater_a,
            rater_b=rater_b,
            created_by=actor,
        )
        _group_audited(group=created, actor=actor, action="group.create")
        return created, True
    if {group.rater_a_id, group.rater_b_id} != {rater_a.pk, rater_b.pk}:
        return None, False
    return group, False


def group_assign_pair(
    *,
    study: Study,
    scenario: Scenario,
    conditions: Iterable[Condition],
    rater_a: User,
    rater_b: User,
    actor: User | None = None,
) -> list[ScoringGroup]:
    """Give the pair every response of ``scenario`` under each condition (one
    ScoringGroup per condition). A group that already has this pair is only synced;
    a group with another pair is an error (use ``group_reassign``). All or nothing."""
    _check_pair(rater_a, rater_b, study=study)
    conditions = list(conditions)
    if not conditions:
        raise AssignmentError(_("Choose at least one condition."))
    if scenario.study_id not in (None, study.pk):
        raise AssignmentError(_("This scenario belongs to another study."))
    groups = []
    with transaction.atomic():
        for condition in conditions:
            group, _created = group_for_pair(
                study=study,
                scenario=scenario,
                condition=condition,
                rater_a=rater_a,
                rater_b=rater_b,
                actor=actor,
            )
            if group is None:
                raise AssignmentError(
                    _(
                        "Scenario %(scenario)s under condition %(condition)s already has a rater pair; reassign it instead."
                    )
                    % {"scenario": scenario.code, "condition": condition.letter}
                )
            group_sync_assignments(group=group, actor=actor)
            groups.append(group)
    return groups


def assignment_archive(*, assignment: Assignment, actor: User | None, reason: str) -> Assignment:
    """Take an assignment out of the rater's queue. Its sheet (if any) is kept and gets an
    ``archive`` event (an assignment without one: an audit event); nothing is deleted."""
    reason = (reason or "").strip()
    if not reason:
        raise AssignmentError(_("Give a reason."))
    with transaction.atomic():
        assignment = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if assignment.archived_at is not None:
            return assignment
        assignment.archived_at = timezone.now()
        assignment.archived_reason = reason
        assignment.save(update_fields=["archived_at", "archived_reason"])
        sheet = ScoreSheet.objects.filter(assignment=assignment).first()
        if sheet is not None:
            SheetEvent.objects.create(
                sheet=sheet, actor=actor, kind=EventKind.ARCHIVE, version=sheet.version, note=reason
            )
        else:  # no sheet to keep the event: who did it goes to the audit trail (hostile pass 13)
            audit_record(
                actor=actor,
                action="assignment.archived",
                target=assignment,
                changes={"rater": assignment.rater_id, "response": assignment.response_id},
                reason=reason,
            )
    return assignment


def group_archive(*, group: ScoringGroup, actor: User | None, reason: str) -> ScoringGroup:
    """Remove a pair from a scenario group: the group and its assignments are archived."""
    reason = (reason or "").strip()
    if not reason:
        raise AssignmentError(_("Give a reason."))
    with transaction.atomic():
        group = ScoringGroup.objects.select_for_update().get(pk=group.pk)
        if group.archived_at is not None:
            return group
        for assignment in group.assignments.filter(archived_at__isnull=True):
            assignment_archive(assignment=assignment, actor=actor, reason=reason)
        group.archived_at = timezone.now()
        group.archived_reason = reason
        group.save(update_fields=["archived_at", "archived_reason"])
    return group


def group_reassign(
    *, group: ScoringGroup, rater_a: User, rater_b: User, actor: User | None, reason: str
) -> ScoringGroup:
    """Give a scenario group a new pair. A rater who stays keeps their sheets; a rater
    who leaves has their assignments archived (sheets kept, audit event written);
    a new rater gets every response of the group. Returns the new group."""
    _check_pair(rater_a, rater_b, study=group.study)
    reason = (reason or "").strip()
    if not reason:
        raise AssignmentError(_("Give a reason."))
    new_pair = {rater_a.pk, rater_b.pk}
    with transaction.atomic():
        group = ScoringGroup.objects.select_for_update().get(pk=group.pk)
        if group.archived_at is not None:
            raise AssignmentError(_("This group is archived."))
        if {group.rater_a_id, group.rater_b_id} == new_pair:
            raise AssignmentError(_("The group already has this pair."))
        staying = []
        for assignment in group.assignments.filter(archived_at__isnull=True):
            if assignment.rater_id in new_pair:
                staying.append(assignment)
            else:
                assignment_archive(assignment=assignment, actor=actor, reason=reason)
        group.archived_at = timezone.now()
        group.archived_reason = reason
        group.save(update_fields=["archived_at", "archived_reason"])
        new_group = ScoringGroup.objects.create(
            study=group.study,
            scenario=group.scenario,
            condition=group.condition,
            rater_a=rater_a,
            rater_b=rater_b,
            created_by=actor,
        )
        Assignment.objects.filter(pk__in=[a.pk for a in staying]).update(group=new_group)
        _group_audited(group=new_group, actor=actor, action="group.reassign", replaced=group, reason=reason)
        group_sync_assignments(group=new_group, actor=actor)
    return new_group


def _group_audited(
    *,
    group: ScoringGroup,
    actor: User | None,
    action: str,
    replaced: ScoringGroup | None = None,
    reason: str = "",
) -> None:
    """A pair given a scenario and condition (or put in another pair's place), audited."""
    before = [replaced.rater_a.username, replaced.rater_b.username] if replaced is not None else None
    changes: dict[str, list[Any]] = {
        "scenario": [None, group.scenario.code],
        "condition": [None, group.condition.letter],
        "pair": [before, [group.rater_a.username, group.rater_b.username]],
    }
    audit_record(actor=actor, action=action, target=group, study=group.study, changes=changes, reason=reason)


# --- balanced automatic assignment ---------------------------------------------


@dataclass(frozen=True)
class PlannedGroup:
    scenario_id: int
    condition_id: int
    responses: int
    rater_a_id: int
    rater_b_id: int


@dataclass
class AssignmentPlan:
    groups: list[PlannedGroup]
    load_before: dict[int, int]
    load_after: dict[int, int]
    pair_counts: dict[tuple[int, int], int] = field(default_factory=dict)
    # responses of the planned groups held for review: not counted, not assigned until released
    held: int = 0

    @property
    def spread(self) -> int:
        """Largest minus smallest workload after the plan (responses per rater)."""
        values = list(self.load_after.values())
        return max(values) - min(values) if values else 0


def _pair_key(a: int, b: int) -> tuple[int, int]:
    """A rater pair in a fixed order, the smaller id first (``tuple(sorted((a, b)))``)."""
    return (a, b) if a <= b else (b, a)


def plan_balanced_pairs(
    *,
    rater_ids: Sequence[int],
    groups: Sequence[tuple[int, int, int]],
    current_load: dict[int, int] | None = None,
    current_pairs: dict[tuple[int, int], int] | None = None,
) -> AssignmentPlan:
    """Pure planning: ``groups`` are (scenario_id, condition_id, n_responses).

    Largest groups first, each goes to the pair with the smallest combined
    workload; ties go to the pair used least so far (pairs vary), then to the
    raters in the given order (the plan is deterministic, so it can be shown and
    then applied unchanged)."""
    raters = list(dict.fromkeys(rater_ids))
    if len(raters) < 2:
        raise AssignmentError(_("Choose at least two raters."))
    load = {r: (current_load or {}).get(r, 0) for r in raters}
    before = dict(load)
    pairs: Counter[tuple[int, int]] = Counter({_pair_key(*k): v for k, v in (current_pairs or {}).items()})
    candidates = [(a, b) for i, a in enumerate(raters) for b in raters[i + 1 :]]
    index = {r: i for i, r in enumerate(raters)}
    planned = []
    for scenario_id, condition_id, n in sorted(groups, key=lambda g: (-g[2], g[0], g[1])):
        weight = max(n, 1)

        def cost(pair: tuple[int, int], weight: int = weight) -> tuple[int, int, int, int, int]:
            a, b = pair
            return (
                max(load[a], load[b]) + weight,
                load[a] + load[b],
                pairs[_pair_key(a, b)],
                index[a],
                index[b],
            )

        a, b = min(candidates, key=cost)
        load[a] += weight
        load[b] += weight
        pairs[_pair_key(a, b)] += 1
        planned.append(PlannedGroup(scenario_id, condition_id, n, a, b))
    return AssignmentPlan(groups=planned, load_before=before, load_after=load, pair_counts=dict(pairs))


def plan_for_study(
    *, study: Study, scenarios: Iterable[Scenario], conditions: Iterable[Condition], raters: Iterable[User]
) -> AssignmentPlan:
    """A balanced plan for the scenario groups (scenario x condition) that have no
    active pair yet, counting the raters' current active workloads."""
    raters = list(raters)
    for user in raters:
        if not is_rater(user):
            raise AssignmentError(_("%(user)s is not a rater.") % {"user": user.get_username()})
    _check_qualified(raters, study=study)
    scenarios, conditions = list(scenarios), list(conditions)
    taken = set(
        ScoringGroup.objects.filter(study=study, archived_at__isnull=True).values_list(
            "scenario_id", "condition_id"
        )
    )
    counts: dict[tuple[int, int], int] = {}
    held: dict[tuple[int, int], int] = {}
    for row in (
        Response.objects.filter(study=study)
        .exclude(status=ResponseStatus.WITHDRAWN)
        .values("scenario_id", "condition_id", "held")
        .annotate(n=Count("id"))
    ):
        key = (row["scenario_id"], row["condition_id"])
        target = held if row["held"] else counts
        target[key] = target.get(key, 0) + row["n"]
    groups = [
        (s.pk, c.pk, counts.get((s.pk, c.pk), 0))
        for s in scenarios
        for c in conditions
        if (s.pk, c.pk) not in taken
    ]
    if not groups:
        raise AssignmentError(_("Every chosen scenario group already has a rater pair."))
    load = dict(
        Assignment.objects.filter(rater__in=raters, archived_at__isnull=True)
        .values_list("rater_id")
        .annotate(n=Count("id"))
    )
    current_pairs: Counter[tuple[int, int]] = Counter()
    for a, b in ScoringGroup.objects.filter(archived_at__isnull=True).values_list("rater_a_id", "rater_b_id"):
        current_pairs[_pair_key(a, b)] += 1
    plan = plan_balanced_pairs(
        rater_ids=[u.pk for u in raters], groups=groups, current_load=load, current_pairs=current_pairs
    )
    plan.held = sum(held.get((s, c), 0) for s, c, _n in groups)
    return plan


def plan_apply(
    *, study: Study, plan: Sequence[PlannedGroup], actor: User | None = None
) -> list[ScoringGroup]:
    """Create the planned groups and their assignments (all or nothing)."""
    users = get_user_model().objects.in_bulk({p.rater_a_id for p in plan} | {p.rater_b_id for p in plan})
    scenarios = Scenario.objects.in_bulk({p.scenario_id for p in plan})
    conditions = Condition.objects.in_bulk({p.condition_id for p in plan})
    groups = []
    try:
        with transaction.atomic():
            for p in plan:
                try:
                    scenario, condition = scenarios[p.scenario_id], conditions[p.condition_id]
                    rater_a, rater_b = users[p.rater_a_id], users[p.rater_b_id]
                except KeyError as exc:
                    raise AssignmentError(_("The plan refers to something that no longer exists.")) from exc
                if group_active_get(study_id=study.pk, scenario_id=scenario.pk, condition_id=condition.pk):
                    raise AssignmentError(
                        _(
                            "Scenario %(scenario)s under condition %(condition)s got a pair in the meantime; make a new plan."
                        )
                        % {"scenario": scenario.code, "condition": condition.letter}
                    )
                groups.extend(
                    group_assign_pair(
                        study=study,
                        scenario=scenario,
                        conditions=[condition],
                        rater_a=rater_a,
                        rater_b=rater_b,
                        actor=actor,
                    )
                )
    except IntegrityError as exc:
        raise AssignmentError(
            _("The plan conflicts with assignments made in the meantime; make a new plan.")
        ) from exc
    return groups

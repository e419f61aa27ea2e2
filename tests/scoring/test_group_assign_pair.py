"""Rater pairs per scenario group: assignment, later responses, reassignment, archiving."""

import pytest
from django.utils import timezone

from scoring.models import Assignment, ScoreSheet, ScoringGroup, SheetEvent
from scoring.services.arrival import response_assign_to_group
from scoring.services.assignments import (
    AssignmentError,
    assignment_archive,
    group_archive,
    group_assign_pair,
    group_reassign,
    group_sync_assignments,
)
from scoring.services.sheets import sheet_apply_changes, sheet_open
from studies.models import AuditEvent
from tests.factories import (
    ConditionFactory,
    ModelEndpointFactory,
    ScenarioFactory,
    StudyFactory,
    UserFactory,
    make_response,
    rater,
)


@pytest.fixture
def world(db):
    study = StudyFactory()
    scenario = ScenarioFactory(study=study)
    cond_a = ConditionFactory(letter="A", name="TeamLLM", strategy="teamllm")
    cond_b = ConditionFactory(letter="B", name="Single", strategy="single")
    models = [ModelEndpointFactory(model_number=f"0{i}", name=f"m{i}") for i in (1, 2, 3)]
    responses = {
        (c.letter, m.model_number): make_response(study=study, scenario=scenario, model=m, condition=c)
        for c in (cond_a, cond_b)
        for m in models
    }
    raters = [rater(f"r{i}", f"H{i:02d}") for i in range(1, 5)]
    return {"study": study, "scenario": scenario, "a": cond_a, "b": cond_b, "models": models,
            "responses": responses, "raters": raters}  # fmt: skip


def active(rater_user):
    return set(
        Assignment.objects.filter(rater=rater_user, archived_at__isnull=True).values_list(
            "response_id", flat=True
        )
    )


def test_group_assign_pair_gives_both_raters_every_response_of_each_condition(world):
    r1, r2 = world["raters"][:2]
    groups = group_assign_pair(
        study=world["study"],
        scenario=world["scenario"],
        conditions=[world["a"], world["b"]],
        rater_a=r1,
        rater_b=r2,
    )
    assert len(groups) == 2
    expected = {r.pk for r in world["responses"].values()}
    assert active(r1) == active(r2) == expected
    assert Assignment.objects.filter(group__in=groups, role="primary").count() == 12
    # assigning the same pair again changes nothing
    group_assign_pair(
        study=world["study"], scenario=world["scenario"], conditions=[world["a"]], rater_a=r2, rater_b=r1
    )
    assert Assignment.objects.count() == 12


def test_group_assign_pair_refuses_a_second_pair_and_bad_pairs(world):
    r1, r2, r3, _ = world["raters"]
    group_assign_pair(
        study=world["study"], scenario=world["scenario"], conditions=[world["a"]], rater_a=r1, rater_b=r2
    )
    with pytest.raises(AssignmentError):
        group_assign_pair(study=world["study"], scenario=world["scenario"], conditions=[world["b"], world["a"]],
                          rater_a=r1, rater_b=r3)  # fmt: skip
    assert not ScoringGroup.objects.filter(condition=world["b"]).exists()  # all or nothing
    with pytest.raises(AssignmentError):
        group_assign_pair(
            study=world["study"], scenario=world["scenario"], conditions=[world["b"]], rater_a=r1, rater_b=r1
        )
    with pytest.raises(AssignmentError):
        group_assign_pair(study=world["study"], scenario=world["scenario"], conditions=[world["b"]], rater_a=r1,
                          rater_b=UserFactory(username="not-a-rater"))  # fmt: skip


def test_response_assign_to_group_assigns_responses_added_later(world):
    r1, r2 = world["raters"][:2]
    (group,) = group_assign_pair(
        study=world["study"], scenario=world["scenario"], conditions=[world["a"]], rater_a=r1, rater_b=r2
    )
    # response_create hands a response added later to its group's pair at once
    late = make_response(study=world["study"], scenario=world["scenario"], model=ModelEndpointFactory(model_number="07"),
                         condition=world["a"])  # fmt: skip
    assert late.pk in active(r1) and late.pk in active(r2)
    assert response_assign_to_group(response=late) == 0  # idempotent
    Assignment.objects.filter(response=late).update(archived_at=timezone.now())
    assert response_assign_to_group(response=late) == 2  # and it restores what is missing
    assert late.pk in active(r1) and late.pk in active(r2)
    other = make_response(study=world["study"], scenario=world["scenario"], model=ModelEndpointFactory(model_number="08"),
                          condition=world["b"])  # fmt: skip
    assert response_assign_to_group(response=other) == 0  # condition B has no pair
    another = make_response(study=world["study"], scenario=world["scenario"], model=ModelEndpointFactory(model_number="09"),
                            condition=world["a"])  # fmt: skip
    Assignment.objects.filter(response=another, rater=r2).update(archived_at=timezone.now())
    assert group_sync_assignments(group=group) == 1
    assert another.pk in active(r2)


def test_group_reassign_archives_the_leaving_rater_and_keeps_the_sheet(world):
    r1, r2, r3, _ = world["raters"]
    (group,) = group_assign_pair(
        study=world["study"], scenario=world["scenario"], conditions=[world["a"]], rater_a=r1, rater_b=r2
    )
    scored = Assignment.objects.filter(rater=r2, group=group).first()
    sheet = sheet_open(assignment=scored, actor=r2)
    sheet_apply_changes(sheet_id=sheet.pk, actor=r2, changes=[("dims.s2.purpose", 3)], expected_version=0)
    kept = Assignment.objects.filter(rater=r1, group=group).first()
    kept_sheet = sheet_open(assignment=kept, actor=r1)
    admin = UserFactory(username="boss", is_superuser=True)

    with pytest.raises(AssignmentError):
        group_reassign(group=group, rater_a=r1, rater_b=r3, actor=admin, reason="")
    new = group_reassign(group=group, rater_a=r1, rater_b=r3, actor=admin, reason="H02 on leave")

    group.refresh_from_db()
    assert group.archived_at is not None and group.archived_reason == "H02 on leave"
    assert active(r2) == set()
    scored.refresh_from_db()
    assert scored.archived_at is not None and scored.archived_reason == "H02 on leave"
    assert ScoreSheet.objects.filter(pk=sheet.pk).exists()  # never deleted
    event = SheetEvent.objects.get(sheet=sheet, kind="archive")
    assert event.actor == admin and event.note == "H02 on leave"
    assert active(r3) == {r.pk for (c, _), r in world["responses"].items() if c == "A"}
    kept.refresh_from_db()
    assert kept.archived_at is None and kept.group_id == new.pk  # r1 keeps their sheet
    assert ScoreSheet.objects.get(pk=kept_sheet.pk).assignment_id == kept.pk


def test_group_archive_and_assignment_archive_keep_every_sheet(world):
    r1, r2 = world["raters"][:2]
    (group,) = group_assign_pair(
        study=world["study"], scenario=world["scenario"], conditions=[world["a"]], rater_a=r1, rater_b=r2
    )
    one = Assignment.objects.filter(rater=r1, group=group).first()
    sheet = sheet_open(assignment=one, actor=r1)
    assignment_archive(assignment=one, actor=None, reason="duplicate")
    assert SheetEvent.objects.filter(sheet=sheet, kind="archive").count() == 1
    assignment_archive(assignment=one, actor=None, reason="again")  # already archived: no-op
    assert SheetEvent.objects.filter(sheet=sheet, kind="archive").count() == 1
    group_archive(group=group, actor=None, reason="study stopped")
    assert active(r1) == active(r2) == set()
    assert Assignment.objects.filter(group=group).count() == 6
    assert ScoreSheet.objects.filter(pk=sheet.pk).exists()
    # the five without a sheet: each in the audit trail, with the reason (hostile pass 13)
    unopened = Assignment.objects.filter(group=group, sheet__isnull=True)
    events = AuditEvent.objects.filter(action="assignment.archived")
    assert sorted(e.target for e in events) == sorted(f"scoring.assignment:{a.pk}" for a in unopened)
    assert {e.reason for e in events} == {"study stopped"}

"""The admin pages: assign a pair, plan and apply a balanced assignment, the workload
board, reassigning a group."""

import re

import pytest

from scoring.models import Assignment, ScoreSheet, ScoringGroup, SheetEvent
from scoring.selectors import sheet_entries_get
from scoring.services.sheets import sheet_apply_changes, sheet_open
from studies.models import Condition, Response, Scenario
from studies.services.responses import response_create
from tests.factories import ModelEndpointFactory, rater


@pytest.fixture
def admin_client(client, demo):
    client.login(username="admin", password="demo-pass-2026")
    return client


def _more_responses(study, scenario, letter, numbers):
    condition = Condition.objects.get(letter=letter)
    a05 = Response.objects.get(research_id="A05_FS10")
    return [
        response_create(
            study=study,
            scenario=scenario,
            model=ModelEndpointFactory(model_number=n),
            condition=condition,
            answers=a05.answers,
            source="imported",
        )  # fmt: skip
        for n in numbers
    ]


@pytest.mark.django_db
def test_admin_assigns_a_pair_to_a_scenario_under_two_conditions(admin_client, demo):
    fs10 = Scenario.objects.get(code="FS10")
    _more_responses(demo.study, fs10, "B", ["31", "32"])
    r3, r4 = rater("r3", "H13"), rater("r4", "H14")
    reply = admin_client.post("/manage/assignments/", {
        "study": demo.study.pk, "scenario": fs10.pk,
        "conditions": [Condition.objects.get(letter="A").pk, Condition.objects.get(letter="B").pk],
        "rater_a": r3.pk, "rater_b": r4.pk,
    })  # fmt: skip
    # condition A already belongs to rater1 + rater2: refused, nothing created
    assert reply.status_code == 200 and "already has a rater pair" in reply.content.decode()
    assert not Assignment.objects.filter(rater__in=[r3, r4]).exists()
    reply = admin_client.post("/manage/assignments/", {
        "study": demo.study.pk, "scenario": fs10.pk, "conditions": [Condition.objects.get(letter="B").pk],
        "rater_a": r3.pk, "rater_b": r4.pk,
    })  # fmt: skip
    assert reply.status_code == 302
    assert Assignment.objects.filter(rater=r3).count() == Assignment.objects.filter(rater=r4).count() == 2
    board = admin_client.get("/manage/workload/").content.decode()
    assert "r3 (H13)" in board and "rater1 (H01)" in board and "r3 + r4" in board


@pytest.mark.django_db
def test_admin_sees_the_balanced_plan_before_applying_it(admin_client, demo):
    fs10 = Scenario.objects.get(code="FS10")
    study = demo.study
    _more_responses(study, fs10, "B", ["41", "42", "43"])
    _more_responses(study, fs10, "C", ["44"])
    raters = [rater(f"auto{i}", f"H2{i}") for i in range(3)]
    form = {
        "study": study.pk, "scenarios": [fs10.pk],
        "conditions": [Condition.objects.get(letter=x).pk for x in "ABC"],
        "raters": [r.pk for r in raters],
    }  # fmt: skip
    reply = admin_client.post("/manage/assignments/auto/", form)
    page = reply.content.decode()
    assert reply.status_code == 200 and 'id="plan"' in page
    assert not Assignment.objects.filter(rater__in=raters).exists()  # only a plan so far
    plan = re.search(r'name="plan" value="([^"]+)"', page).group(1)
    assert len(plan.split()) == 2  # groups B and C (A already has a pair)
    reply = admin_client.post("/manage/assignments/auto/apply/", {"study": study.pk, "plan": plan})
    assert reply.status_code == 302
    groups = ScoringGroup.objects.filter(archived_at__isnull=True, condition__letter__in=["B", "C"])
    assert groups.count() == 2
    loads = sorted(Assignment.objects.filter(rater=r).count() for r in raters)
    assert loads == [1, 3, 4]  # the 3-response group and the 1-response group share the least loaded rater
    assert {tuple(sorted((g.rater_a_id, g.rater_b_id))) for g in groups}.__len__() == 2  # pairs vary
    # applying the same plan again is refused and changes nothing
    admin_client.post("/manage/assignments/auto/apply/", {"study": study.pk, "plan": plan})
    assert ScoringGroup.objects.filter(archived_at__isnull=True).count() == 3


@pytest.mark.django_db
def test_admin_reassigns_a_group_and_the_scored_sheet_is_archived_not_deleted(admin_client, demo):
    group = ScoringGroup.objects.get()
    leaving = Assignment.objects.get(group=group, rater__username="rater2")
    sheet = sheet_open(assignment=leaving, actor=leaving.rater)
    sheet_apply_changes(
        sheet_id=sheet.pk, actor=leaving.rater, changes=[("dims.s2.focus", 8)], expected_version=0
    )
    newcomer = rater("newcomer", "H07")
    rater1 = group.rater_a if group.rater_a.username == "rater1" else group.rater_b
    reply = admin_client.post(f"/manage/assignments/groups/{group.pk}/", {
        "action": "reassign", "rater_a": rater1.pk, "rater_b": newcomer.pk, "reason": "H02 moved to calibration",
    })  # fmt: skip
    assert reply.status_code == 302
    leaving.refresh_from_db()
    assert leaving.archived_at is not None and leaving.archived_reason == "H02 moved to calibration"
    assert SheetEvent.objects.filter(sheet=sheet, kind="archive").exists()
    kept = ScoreSheet.all_objects.get(pk=sheet.pk)  # the draft's entries, on the sheet
    assert sheet_entries_get(sheet=kept).dimensions["s2.focus"] == 8
    assert Assignment.objects.filter(rater=newcomer, archived_at__isnull=True).count() == 1
    detail = admin_client.get(reply["Location"]).content.decode()
    assert "newcomer" in detail and "A05_FS10" in detail


def test_an_archived_groups_page_lists_its_own_pair_not_the_next(admin_client, demo):
    """Hostile pass 25 (C13): after a reassignment, the old group's page listed the new pair's
    assignments as if they were its own."""
    group = ScoringGroup.objects.get()
    newcomer = rater("newcomer", "H07")
    rater1 = group.rater_a if group.rater_a.username == "rater1" else group.rater_b
    reply = admin_client.post(f"/manage/assignments/groups/{group.pk}/", {
        "action": "reassign", "rater_a": rater1.pk, "rater_b": newcomer.pk, "reason": "H02 left",
    })  # fmt: skip
    assert reply.status_code == 302
    old = admin_client.get(f"/manage/assignments/groups/{group.pk}/").content.decode()
    new = admin_client.get(reply["Location"]).content.decode()
    assert "rater2" in old and "newcomer" not in old
    assert "newcomer" in new and "rater2" in new  # the active group keeps the history

"""Issue 39: the judge's scoring plan as researchers read it and admins apply it. The page shows
the selector's plan; applying gives exactly the shown responses to the pair, audited; a plan that
changed in the meantime, a bad choice or a researcher changes nothing."""

from __future__ import annotations

import pytest

from core.accounts.roles import ADMIN, RESEARCHER
from judging.selectors.planning import scoring_plan_get
from research.results import fmt
from scoring.models import Assignment, AssignmentRole
from scoring.services.assignments import group_assign_pair
from studies.models import AuditEvent
from tests.factories import UserFactory, rater

pytestmark = pytest.mark.django_db
URL = "/research/judge/plan/"


def _primaries(response):
    return set(
        Assignment.objects.filter(
            response=response, role=AssignmentRole.PRIMARY, archived_at__isnull=True
        ).values_list("rater__username", flat=True)
    )


def test_researchers_see_the_plan_admins_give_it_to_a_pair(client, study_judged):
    study, judge, responses = study_judged
    free = [responses[(2, "B")], responses[(3, "A")]]  # judged, not human-scored, no pair yet
    query = {"study": study.pk, "judge": judge.pk, "budget": 5}
    plan = scoring_plan_get(study=study, judge=judge, budget=5)
    assert sorted(plan.response_ids) == sorted(r.pk for r in free)

    client.force_login(UserFactory(username="res-plan", role=RESEARCHER))
    html = client.get(URL, query).content.decode()
    for row in plan.rows:
        cells = f"<td>{row.human}</td><td>{row.judge_only}</td><td>{row.available}</td>"
        assert (
            cells in html and f"<td>{fmt(row.width_before, 2)}</td><td>{fmt(row.width_after, 2)}</td>" in html
        )
    assert all(r.research_id in html for r in free) and "Assign the plan" not in html
    assert client.post(URL, {**query, "reviewed": ",".join(map(str, plan.response_ids))}).status_code == 403

    client.force_login(UserFactory(username="admin-plan", role=ADMIN))
    html = client.get(URL, query).content.decode()
    assert "Assign the plan" in html and ",".join(map(str, plan.response_ids)) in html
    a, b = rater("plan-a", "P01"), rater("plan-b", "P02")
    applied = {**query, "reviewed": ",".join(map(str, plan.response_ids)), "rater_a": a.pk, "rater_b": b.pk}
    done = client.post(URL, applied, follow=True)
    assert "4 assignments made." in done.content.decode()
    assert all(_primaries(r) == {"plan-a", "plan-b"} for r in free)
    event = AuditEvent.objects.get(action="assignment.pair_responses")
    assert event.actor.username == "admin-plan" and event.study == study
    assert sorted(event.changes["responses"]) == sorted(r.research_id for r in free)
    assert scoring_plan_get(study=study, judge=judge, budget=5).response_ids == []  # nothing free now

    # a pair given to that scenario and condition later leaves the planned responses to their pair
    group_assign_pair(
        study=study, scenario=free[0].scenario, conditions=[free[0].condition],
        rater_a=rater("late-a", "P03"), rater_b=rater("late-b", "P04"), actor=None,
    )  # fmt: skip
    assert _primaries(free[0]) == {"plan-a", "plan-b"}


def test_a_changed_plan_or_bad_input_changes_nothing(client, study_judged):
    study, judge, responses = study_judged
    client.force_login(UserFactory(username="admin-plan2", role=ADMIN))
    query = {"study": study.pk, "judge": judge.pk, "budget": 1}
    plan = scoring_plan_get(study=study, judge=judge, budget=1)
    a, b = rater("plan2-a", "P05"), rater("plan2-b", "P06")
    other = next(r.pk for r in responses.values() if r.pk not in plan.response_ids)
    stale = client.post(URL, {**query, "reviewed": str(other), "rater_a": a.pk, "rater_b": b.pk}, follow=True)
    assert "The plan has changed since it was shown" in stale.content.decode()
    same = client.post(
        URL, {**query, "reviewed": str(plan.response_ids[0]), "rater_a": a.pk, "rater_b": a.pk}, follow=True
    )
    assert "Choose two different raters." in same.content.decode()
    for bad in (
        {**query, "budget": "0"},
        {**query, "budget": "abc"},
        {**query, "study": "x"},
        {**query, "judge": 10**30},
        {**query, "reviewed": "1,x", "rater_a": a.pk, "rater_b": b.pk},
    ):
        page = client.post(URL, bad)
        assert page.status_code in (302, 400), bad
        assert client.get(URL, {k: v for k, v in bad.items() if k != "reviewed"}).status_code in (200, 400)
    assert not Assignment.objects.filter(rater__in=[a, b]).exists()
    assert not AuditEvent.objects.filter(action="assignment.pair_responses").exists()

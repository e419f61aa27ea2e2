"""Automatic balanced assignment: even workloads, varied pairs, plan shown then applied."""

import itertools

import pytest

from scoring.models import Assignment, ScoringGroup
from scoring.services.assignments import AssignmentError, plan_apply, plan_balanced_pairs, plan_for_study
from tests.factories import (
    ConditionFactory,
    ModelEndpointFactory,
    ScenarioFactory,
    StudyFactory,
    make_response,
    rater,
)


def test_plan_balanced_pairs_evens_workloads_and_varies_pairs():
    raters = [1, 2, 3, 4, 5]
    groups = [(s, c, 10) for s in range(1, 11) for c in (1, 2)]  # 20 groups of 10 responses
    plan = plan_balanced_pairs(rater_ids=raters, groups=groups)
    assert len(plan.groups) == 20
    assert sum(plan.load_after.values()) == 20 * 10 * 2
    assert plan.spread <= 10  # within one group of each other (80 each here)
    assert set(plan.load_after.values()) == {80}
    pairs = {tuple(sorted((g.rater_a_id, g.rater_b_id))) for g in plan.groups}
    assert pairs == set(itertools.combinations(raters, 2))  # all ten pairs used
    assert max(plan.pair_counts.values()) - min(plan.pair_counts.values()) <= 1
    for g in plan.groups:
        assert g.rater_a_id != g.rater_b_id


def test_plan_balanced_pairs_counts_existing_workload_and_is_deterministic():
    plan = plan_balanced_pairs(rater_ids=[1, 2, 3], groups=[(1, 1, 5), (2, 1, 5)], current_load={1: 40})
    assert all(1 not in (g.rater_a_id, g.rater_b_id) for g in plan.groups)
    again = plan_balanced_pairs(rater_ids=[1, 2, 3], groups=[(1, 1, 5), (2, 1, 5)], current_load={1: 40})
    assert again.groups == plan.groups
    with pytest.raises(AssignmentError):
        plan_balanced_pairs(rater_ids=[1], groups=[(1, 1, 5)])


@pytest.mark.django_db
def test_plan_for_study_then_plan_apply_assigns_groups_without_a_pair():
    study = StudyFactory()
    scenarios = [ScenarioFactory(study=study) for _ in range(3)]
    cond = ConditionFactory(letter="A")
    model = ModelEndpointFactory(model_number="01")
    for s in scenarios:
        make_response(study=study, scenario=s, model=model, condition=cond)
    raters = [rater(f"p{i}", f"H{i + 20}") for i in range(3)]
    plan = plan_for_study(study=study, scenarios=scenarios, conditions=[cond], raters=raters)
    assert len(plan.groups) == 3
    assert not ScoringGroup.objects.exists()  # planning assigns nothing
    plan_apply(study=study, plan=plan.groups)
    assert ScoringGroup.objects.filter(archived_at__isnull=True).count() == 3
    assert Assignment.objects.count() == 6
    counts = sorted(Assignment.objects.filter(rater=r).count() for r in raters)
    assert counts == [2, 2, 2]
    with pytest.raises(AssignmentError):
        plan_apply(study=study, plan=plan.groups)  # groups got pairs in the meantime
    assert Assignment.objects.count() == 6
    with pytest.raises(AssignmentError):
        plan_for_study(study=study, scenarios=scenarios, conditions=[cond], raters=raters)

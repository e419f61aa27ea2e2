"""A rater who trained on a training copy has seen its reference: they are never
assigned the live original (pair assignment, reassignment, the page), with a message."""

import pytest

from scoring.models import Assignment, ScoringGroup
from scoring.services.assignments import AssignmentError, group_assign_pair, group_reassign
from studies.models import Condition, Response, Scenario
from studies.services.review import response_release
from tests.factories import code_for, make_response, rater
from training.services.qualification import qualification_override
from training.services.training_set import training_enroll

pytestmark = pytest.mark.django_db


@pytest.fixture
def trainee(gold, admin_user):
    user = rater("trainee", "H09")
    training_enroll(rater=user, study=gold.study)
    # let through, so that only the trained-on rule can refuse
    qualification_override(rater=user, study=gold.study, actor=admin_user, reason="senior rater")
    return user


def test_reassigning_the_original_to_a_trainee_is_refused_and_changes_nothing(gold, trainee, admin_user):
    original = gold.source
    group = ScoringGroup.objects.get(
        study=gold.study, scenario=original.scenario, condition=original.condition
    )
    other = group.rater_b
    qualification_override(rater=other, study=gold.study, actor=admin_user, reason="expert of the release")
    with pytest.raises(AssignmentError) as refused:
        group_reassign(group=group, rater_a=trainee, rater_b=other, actor=admin_user, reason="swap")
    assert "trainee trained on a copy of A05_FS10" in refused.value.message
    group.refresh_from_db()
    assert group.archived_at is None  # all or nothing
    assert not Assignment.objects.filter(rater=trainee, response=original).exists()


def test_a_pair_assignment_with_the_original_is_refused_but_other_groups_are_fine(gold, trainee, admin_user):
    other = rater("other", "H10")
    qualification_override(rater=other, study=gold.study, actor=admin_user, reason="senior rater")
    fs10 = Scenario.objects.get(code="FS10")
    a, b = Condition.objects.get(letter="A"), Condition.objects.get(letter="B")
    ScoringGroup.objects.filter(study=gold.study, scenario=fs10, condition=a).update(
        archived_at="2026-01-01T00:00Z"
    )
    with pytest.raises(AssignmentError) as refused:
        group_assign_pair(
            study=gold.study,
            scenario=fs10,
            conditions=[b, a],
            rater_a=other,
            rater_b=trainee,
            actor=admin_user,
        )
    assert "A05_FS10" in refused.value.message
    assert not ScoringGroup.objects.filter(study=gold.study, rater_b=trainee).exists()
    # a response they did not train on is theirs to score
    make_response(
        study=gold.study, scenario=fs10, model=gold.source.model, condition=b, research_id="B05_FS10"
    )
    live = Response.objects.filter(study=gold.study, condition=b, training__isnull=True)
    assert live.count() == 1
    groups = group_assign_pair(
        study=gold.study, scenario=fs10, conditions=[b], rater_a=other, rater_b=trainee, actor=admin_user
    )
    assert len(groups) == 1
    assert Assignment.objects.filter(rater=trainee, response__in=live).count() == live.count()


def test_the_assignment_page_shows_the_refusal(client, gold, trainee, admin_user):
    other = rater("other", "H10")
    qualification_override(rater=other, study=gold.study, actor=admin_user, reason="senior rater")
    fs10, a = Scenario.objects.get(code="FS10"), Condition.objects.get(letter="A")
    ScoringGroup.objects.filter(study=gold.study, scenario=fs10, condition=a).update(
        archived_at="2026-01-01T00:00Z"
    )
    client.force_login(admin_user)
    reply = client.post(
        "/manage/assignments/",
        {
            "study": gold.study.pk,
            "scenario": fs10.pk,
            "conditions": [a.pk],
            "rater_a": trainee.pk,
            "rater_b": other.pk,
        },
    )
    assert reply.status_code == 200
    assert "has seen its reference scores" in reply.content.decode()
    assert not Assignment.objects.filter(rater=trainee, role="primary").exists()


def test_a_live_rater_of_the_original_never_trains_on_its_copy(client, gold):
    """rater1 (H01) scores A05_FS10 live: its training copy's reference (the mean with
    H02's sheet) would show them their partner's work."""
    from django.contrib.auth import get_user_model

    live_rater = get_user_model().objects.get(username="rater1")
    assert Assignment.objects.filter(rater=live_rater, response=gold.source, role="primary").exists()
    assert training_enroll(rater=live_rater, study=gold.study) == 0
    client.force_login(live_rater)
    page = client.get("/training/").content.decode()
    assert "Start training" not in page and f"no-training-{gold.study.pk}" in page
    client.post(f"/training/study/{gold.study.pk}/start/")
    assert not Assignment.objects.filter(rater=live_rater, role="training").exists()
    for code in (gold.response.blind_code, code_for(live_rater, gold.source)):
        assert client.get(f"/training/{code}/").status_code == 404


def test_a_release_to_a_pair_with_the_trainee_is_not_refused_and_waits(gold, trainee, admin_user):
    """Releasing (or the arrival of) the original into a group whose pair holds a rater who
    trained on its copy makes no assignment and refuses nothing: it waits for another pair."""
    original = gold.source
    group = ScoringGroup.objects.get(
        study=gold.study, scenario=original.scenario, condition=original.condition
    )
    Assignment.objects.filter(response=original).update(archived_at="2026-01-01T00:00Z")  # set-up
    Response.objects.filter(pk=original.pk).update(held=True)
    ScoringGroup.objects.filter(pk=group.pk).update(rater_b=trainee)  # set-up past the pair rule
    released = response_release(response_id=original.pk, actor=admin_user)
    assert released.assignments == 0
    assert not Assignment.objects.filter(response=original, archived_at__isnull=True).exists()
    original.refresh_from_db()
    assert original.held is False

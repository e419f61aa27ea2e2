import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from judging.models import Judge
from scoring.models import RaterProfile, ScoringGroup
from studies.models import Condition, ModelEndpoint, Response, Scenario, Study
from training.services.training_set import training_set_add_default


@pytest.mark.django_db
def test_seed_demo_is_idempotent(settings):
    settings.DEMO_MODE = True
    call_command("seed_demo")
    call_command("seed_demo")
    assert Study.objects.count() == 3  # the CGPST demo, and the Likert and pairwise ones
    assert Scenario.objects.filter(code="FS10", theme="Ocean Soup").count() == 1
    # FS10 is the demo study's own: its page lists it (it was shared by no study before)
    study = Study.objects.get(name="CGPST demo")
    assert list(study.scenarios.values_list("code", flat=True)) == ["FS10"]
    assert Response.objects.get(research_id="A05_FS10").scenario.study == study
    # the study's choice of models and conditions is what its pickers offer
    assert set(study.conditions.values_list("letter", flat=True)) == set("ABCDEF")
    assert {"stub", "kimi-k2"} <= set(study.endpoints.values_list("name", flat=True))
    assert Response.objects.filter(research_id="A05_FS10").count() == 1
    users = get_user_model().objects.filter(
        username__in=["admin", "rater1", "rater2", "calibrator", "researcher"]
    )
    assert users.count() == 5
    assert all(u.check_password("demo-pass-2026") for u in users)
    assert RaterProfile.objects.get(user__username="calibrator").can_calibrate
    assert ModelEndpoint.objects.get(name="stub").base_url.startswith("http://127.0.0.1")
    assert Condition.objects.get(letter="A").strategy == "teamllm"
    assert Condition.objects.get(letter="B").strategy == "single"
    # one LLM judge on the stub, inactive as a login, with a J rater code (not twice)
    judge = Judge.objects.get()
    assert judge.endpoint.name == "stub" and not judge.user.is_active
    assert judge.user.rater_profile.rater_code == "J01"


@pytest.mark.django_db
def test_seed_demo_refuses_outside_demo_mode(settings):
    settings.DEMO_MODE = False
    with pytest.raises(CommandError, match="DEMO_MODE"):
        call_command("seed_demo")
    assert not get_user_model().objects.filter(username="admin").exists()


@pytest.mark.django_db
def test_seed_demo_assigns_the_demo_response_to_the_pair_rater1_rater2(settings):
    from scoring.models import Assignment, ScoringGroup

    settings.DEMO_MODE = True
    call_command("seed_demo")
    call_command("seed_demo")
    group = ScoringGroup.objects.get(archived_at__isnull=True, study__name="CGPST demo")
    assert {group.rater_a.username, group.rater_b.username} == {"rater1", "rater2"}
    assert (group.scenario.code, group.condition.letter) == ("FS10", "A")
    active = Assignment.objects.filter(archived_at__isnull=True, response__research_id="A05_FS10")
    assert sorted(a.rater.username for a in active) == ["rater1", "rater2"]
    assert all(a.group_id == group.pk and a.role == "primary" for a in active)


@pytest.mark.django_db
def test_the_demo_study_has_two_members_so_teamfusion_can_be_launched(settings):
    from generation.services.batches import run_settings

    settings.DEMO_MODE = True
    call_command("seed_demo")
    call_command("seed_demo")  # idempotent: still two
    study = Study.objects.get(name="CGPST demo")
    teamfusion = Condition.objects.get(strategy="teamfusion")
    frozen = run_settings(study=study, scenario=Scenario.objects.get(code="FS10"), condition=teamfusion)
    assert [p["name"] for p in frozen["params"]["profiles"]] == ["Demo member A", "Demo member B"]


@pytest.mark.django_db
def test_seed_demo_moves_a_shared_fs10_of_an_older_seed_into_the_demo_study(settings):
    settings.DEMO_MODE = True
    old = Scenario.objects.create(study=None, code="FS10", theme="Ocean Soup", text="old seed")
    call_command("seed_demo")
    old.refresh_from_db()
    assert old.study == Study.objects.get(name="CGPST demo")
    assert Scenario.objects.filter(code="FS10").count() == 1


@pytest.mark.django_db
def test_seed_demo_runs_again_once_the_demo_study_has_a_training_set(settings, data_a, tmp_path):
    """Hostile pass 19: after "Add the default" training set on the demo study, the next make run
    stopped at seed_demo (the demo raters, not qualified on it, could not be paired again)."""
    settings.DEMO_MODE = True
    call_command("seed_demo")
    path = tmp_path / "data_A.json"
    path.write_text(json.dumps(data_a), encoding="utf-8")
    call_command("import_scores", str(path), "--study", "CGPST demo")
    training_set_add_default(study=Study.objects.get(name="CGPST demo"))
    call_command("seed_demo")  # raised AssignmentError: not yet qualified on this study's training set
    group = ScoringGroup.objects.get(archived_at__isnull=True, scenario__code="FS10", condition__letter="A")
    assert {group.rater_a.username, group.rater_b.username} == {"rater1", "rater2"}

"""A study without a training set gates nobody: its raters are not told to train, the
training page does not list it as "not yet qualified" and the admin's rater list says
nothing of qualification (a LEFT JOIN on the training responses once counted a study
with none as having one)."""

import pytest
from django.test import Client

from scoring.gates import live_work_gate
from scoring.selectors.qualification import raters_blocked, unqualified_by_study
from studies.models import Study
from tests.factories import rater
from training.selectors.training import rater_training_home
from training.services.training_set import training_set_add_default

pytestmark = pytest.mark.django_db


def test_a_study_without_a_training_set_is_not_gated(demo):
    assert Study.objects.filter(is_active=True).exists()
    trainee = rater("tina", "H09")
    assert live_work_gate().studies_gated() == []
    assert rater_training_home(user=trainee) == []
    assert raters_blocked(raters=[trainee], study=None) == {}
    assert unqualified_by_study() == []
    client = Client()
    client.force_login(trainee)
    page = client.get("/training/")
    assert page.status_code == 200 and "Not yet qualified" not in page.content.decode()


def test_the_study_is_gated_once_it_has_a_training_set(scored_demo):
    training_set_add_default(study=scored_demo.study)
    trainee = rater("tina", "H09")
    assert live_work_gate().studies_gated() == [scored_demo.study]
    assert [e["study"] for e in rater_training_home(user=trainee)] == [scored_demo.study]
    assert raters_blocked(raters=[trainee], study=None) == {trainee.pk: [scored_demo.study.name]}

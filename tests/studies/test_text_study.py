"""Creating a single-text study: the task is chosen once, with an empty study, and takes a rubric
other than CGPST's (which scores a CGPST task's six steps)."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from studies.models import AuditEvent, Study
from studies.services.studies import StudySetupError, study_create
from tests.factories import UserFactory
from training.services.rubric_import import study_rubric_choose
from training.services.training_set import TrainingError

pytestmark = pytest.mark.django_db


def test_a_text_study_starts_empty_with_the_likert_rubric():
    study = study_create(name="Answers", template="empty", task_kind="text")
    assert (study.task_kind, study.rubric_version) == ("text", "likert-hhh-v1")
    assert AuditEvent.objects.get(action="study.create").changes["task_kind"] == [None, "text"]
    assert study_create(name="Empty one", template="empty").task_kind == "cgpst"


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"template": "cgpst-release", "task_kind": "text"}, "starts empty"),
        ({"template": "empty", "task_kind": "text", "rubric_version": "cgpst-v1"}, "another rubric"),
        ({"template": "empty", "task_kind": "essay"}, "Unknown task"),
    ],
)
def test_impossible_text_studies_are_refused_and_nothing_is_made(values, message):
    with pytest.raises(StudySetupError, match=message):
        study_create(name="Refused", **values)
    assert not Study.objects.exists()


def test_a_text_study_cannot_take_the_cgpst_rubric_later():
    study = study_create(name="Answers", template="empty", task_kind="text")
    with pytest.raises(TrainingError, match="another rubric"):
        study_rubric_choose(study=study, version="cgpst-v1", actor=None)
    study.refresh_from_db()
    assert study.rubric_version == "likert-hhh-v1"
    assert not AuditEvent.objects.filter(action="study.rubric").exists()


def test_create_study_command_makes_a_text_study(capsys):
    call_command("create_study", "Cli answers", "--empty", "--task", "text")
    assert "rubric likert-hhh-v1, task text." in capsys.readouterr().out
    with pytest.raises(CommandError, match="starts empty"):
        call_command("create_study", "Cli two", "--template", "cgpst-release", "--task", "text")


def test_the_new_study_form_makes_a_text_study(client):
    client.force_login(UserFactory(username="boss", role="Admin"))
    page = client.get(reverse("studies:studies")).content.decode()
    assert 'name="task_kind" value="text"' in page
    reply = client.post(
        reverse("studies:studies"), {"name": "Web answers", "template": "empty", "task_kind": "text"}
    )
    study = Study.objects.get(name="Web answers")
    assert reply.status_code == 302 and study.task_kind == "text" and study.rubric_version == "likert-hhh-v1"
    detail = client.get(reply.url).content.decode()
    assert "One prompt, one text" in detail
    refused = client.post(
        reverse("studies:studies"),
        {"name": "Web two", "template": "empty", "task_kind": "text", "rubric_version": "cgpst-v1"},
    )
    assert refused.status_code == 200 and "another rubric" in refused.content.decode()
    assert not Study.objects.filter(name="Web two").exists()

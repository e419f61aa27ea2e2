"""Where a response's diversity gets stored (issue 14): every way a response arrives or its
Step-1/Step-3 text changes dispatches the task, a real worker stores the row, and
``manage.py diversity_backfill`` fills a database made before the rows existed."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

import research.services.diversity as diversity_services
from core.models import TaskOutbox
from research.diversity import text_diversity
from research.models import ResponseDiversity
from research.services.diversity import DIVERSITY_TASK, response_diversity_compute
from studies.models import Response
from studies.response_files import ResponseRecord
from studies.services.responses import responses_import
from studies.signals import response_answers_changed
from tests.factories import SAMPLE_ANSWERS, ConditionFactory, StudyFactory, UserFactory, make_response
from tests.workers import wait_for

pytestmark = pytest.mark.django_db


def _diversity_tasks() -> list[list]:
    return list(
        TaskOutbox.objects.filter(task_name=DIVERSITY_TASK).order_by("pk").values_list("args", flat=True)
    )


def test_an_import_dispatches_one_task_per_new_response_and_none_for_an_identical_one(settings):
    study = StudyFactory(name="Import study")
    ConditionFactory(letter="B", name="Baseline")
    records = [
        ResponseRecord(f"line {n}", f"B0{n}_FS7", "FS7", f"0{n}", "B", list(SAMPLE_ANSWERS)) for n in (1, 2)
    ]
    responses_import(records=records, study=study, create_missing=True)
    ids = sorted(Response.objects.filter(study=study).values_list("pk", flat=True))
    assert sorted(args[0] for args in _diversity_tasks()) == ids

    responses_import(records=records, study=study)  # re-import: nothing new, nothing to compute
    assert len(_diversity_tasks()) == 2


def test_a_change_of_step_1_or_3_text_dispatches_the_task_and_of_step_2_does_not():
    """The core's signal contract: whatever changes a stored response's answers sends
    ``response_answers_changed`` in its transaction (the Django admin no longer edits them)."""
    response = make_response()
    TaskOutbox.objects.all().delete()
    response_answers_changed.send(sender=Response, response=response, steps=[2])
    assert _diversity_tasks() == []  # Step 2 is not in diversity
    response_answers_changed.send(sender=Response, response=response, steps=[3])
    assert _diversity_tasks() == [[response.pk]]


def test_the_django_admin_cannot_edit_a_responses_text(client):
    response = make_response()
    TaskOutbox.objects.all().delete()
    client.force_login(UserFactory(username="div-admin", is_staff=True, is_superuser=True))
    url = f"/admin/studies/response/{response.pk}/change/"
    page = client.get(url)
    assert page.status_code == 200 and b"step3" in page.content  # inspection still works
    assert client.post(url, {"step3": "1. an edited item"}).status_code == 403
    assert Response.objects.get(pk=response.pk).step3 == response.step3
    assert _diversity_tasks() == []


@pytest.mark.django_db(transaction=True)  # the deferred foreign key is checked at the commit
def test_a_response_deleted_while_its_diversity_is_computed_is_ignored(monkeypatch):
    response = make_response()
    real = diversity_services.answers_diversity

    def deleting(answers):
        Response.objects.filter(pk=response.pk).delete()
        return real(answers)

    monkeypatch.setattr(diversity_services, "answers_diversity", deleting)
    assert response_diversity_compute(response_id=response.pk) is False
    assert not ResponseDiversity.objects.filter(response_id=response.pk).exists()


def test_backfill_computes_the_missing_and_stale_rows_once():
    study = StudyFactory(name="Backfill study")
    first = make_response(study=study, research_id="A01_FS1")
    second = make_response(study=study, research_id="B01_FS1")
    elsewhere = make_response(research_id="C01_FS1")
    response_diversity_compute(response_id=second.pk)
    Response.objects.filter(pk=second.pk).update(step1="1. plankton\n2. plankton ocean")  # now stale

    out = StringIO()
    call_command("diversity_backfill", "--study", "Backfill study", stdout=out)
    assert out.getvalue().strip() == "2 response(s) computed, 0 already stored"
    assert set(ResponseDiversity.objects.values_list("response_id", flat=True)) == {first.pk, second.pk}
    row = ResponseDiversity.objects.get(response=second)
    assert row.values["1"] == text_diversity("1. plankton\n2. plankton ocean")

    out = StringIO()
    call_command("diversity_backfill", stdout=out)  # every study
    assert out.getvalue().strip() == "1 response(s) computed, 2 already stored"
    assert ResponseDiversity.objects.filter(response=elsewhere).exists()
    out = StringIO()
    call_command("diversity_backfill", stdout=out)
    assert out.getvalue().strip() == "0 response(s) computed, 3 already stored"


def test_backfill_names_the_studies_when_the_study_is_unknown():
    StudyFactory(name="The only study")
    with pytest.raises(CommandError, match="The only study"):
        call_command("diversity_backfill", "--study", "No such study")


@pytest.mark.worker
def test_the_demo_response_s_diversity_is_stored_by_a_real_worker(celery_worker, demo):
    response = Response.objects.get(research_id="A05_FS10")
    assert _diversity_tasks() == [[response.pk]]
    row = wait_for(lambda: ResponseDiversity.objects.filter(response=response).first(), worker=celery_worker)
    assert row.values == {"1": text_diversity(response.step1), "3": text_diversity(response.step3)}
    assert TaskOutbox.objects.get(task_name=DIVERSITY_TASK).sent_at is not None

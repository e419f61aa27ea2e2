"""A combination whose response was withdrawn can be generated again when the admin asks
for it: the withdrawn response gives up its research ID (kept as ``B90_FS10~W1``, audited)
and the new run takes it. Without the choice the batch says why the combination is skipped,
and a response that was not withdrawn is never replaced."""

from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from api.services.tokens import token_create
from generation.models import GenerationBatch, GenerationRun
from generation.services.batches import BatchError, batch_create, run_cancel
from studies.models import AuditEvent, Condition, Response, ResponseStatus, Scenario, Study
from studies.services.responses import response_create
from studies.services.review import response_withdraw
from tests.factories import SAMPLE_ANSWERS, stub_endpoint

pytestmark = pytest.mark.django_db

NOWHERE = SimpleNamespace(base_url="http://127.0.0.1:9/v1")  # nothing runs in these tests


def _admin():
    return get_user_model().objects.get(username="admin")


def _generated_response(*, withdraw: bool) -> Response:
    study = Study.objects.get(name="CGPST demo")
    study.responses_need_release = True  # held on arrival, so the review gate can withdraw it
    study.save(update_fields=["responses_need_release"])
    response = response_create(
        study=study,
        scenario=Scenario.objects.get(code="FS10"),
        model=stub_endpoint(NOWHERE),
        condition=Condition.objects.get(letter="B"),
        answers=SAMPLE_ANSWERS,
        source="generated",
    )
    if withdraw:
        response_withdraw(response_id=response.pk, actor=_admin(), reason="truncated")
    return response


def _launch(**options):
    return batch_create(
        study=Study.objects.get(name="CGPST demo"),
        scenarios=[Scenario.objects.get(code="FS10")],
        endpoints=[stub_endpoint(NOWHERE)],
        conditions=[Condition.objects.get(letter="B")],
        enqueue=lambda **kw: None,
        created_by=_admin(),
        **options,
    )


def test_without_the_choice_a_withdrawn_combination_is_skipped_with_its_reason(demo):
    withdrawn = _generated_response(withdraw=True)
    assert withdrawn.research_id == "B90_FS10"
    with pytest.raises(BatchError, match="B90_FS10: its response was withdrawn; choose"):
        _launch()
    withdrawn.refresh_from_db()
    assert withdrawn.research_id == "B90_FS10" and not GenerationBatch.objects.exists()


def test_with_the_choice_the_withdrawn_response_gives_up_its_id_to_the_new_run(demo):
    first = _generated_response(withdraw=True)
    launch = _launch(regenerate_withdrawn=True)
    assert [run.settings_snapshot["research_id"] for run in launch.runs] == ["B90_FS10"]
    first.refresh_from_db()
    assert (first.research_id, first.status, first.step1) == (
        "B90_FS10~W1",
        ResponseStatus.WITHDRAWN,
        first.step1,
    )
    event = AuditEvent.objects.get(action="response.research_id_released")
    assert event.actor == _admin() and event.changes == {"research_id": ["B90_FS10", "B90_FS10~W1"]}

    # the regenerated response is withdrawn too: the next one takes the next suffix
    run_cancel(run_id=launch.runs[0].pk)
    _generated_response(withdraw=True)
    _launch(regenerate_withdrawn=True)
    ids = set(
        Response.objects.filter(research_id__startswith="B90_FS10").values_list("research_id", flat=True)
    )
    assert ids == {"B90_FS10~W1", "B90_FS10~W2"}
    assert GenerationRun.objects.filter(settings_snapshot__research_id="B90_FS10").count() == 2


def test_a_response_that_was_not_withdrawn_is_never_replaced(demo):
    kept = _generated_response(withdraw=False)
    with pytest.raises(BatchError, match="B90_FS10: a response with this research ID exists"):
        _launch(regenerate_withdrawn=True)
    kept.refresh_from_db()
    assert (
        kept.research_id == "B90_FS10"
        and not AuditEvent.objects.filter(action="response.research_id_released").exists()
    )


def test_the_generation_page_offers_the_choice(demo, client):
    withdrawn = _generated_response(withdraw=True)
    client.force_login(_admin())
    form = {
        "study": withdrawn.study_id,
        "scenarios": [withdrawn.scenario_id],
        "endpoints": [withdrawn.model_id],
        "conditions": [withdrawn.condition_id],
        "top_p": "paper",
    }
    refused = client.post(reverse("generation:home"), form)
    assert refused.status_code == 200
    assert "Generate withdrawn responses again" in refused.content.decode()
    assert "its response was withdrawn" in refused.content.decode()
    launched = client.post(reverse("generation:home"), {**form, "regenerate_withdrawn": "on"})
    assert launched.status_code == 302
    withdrawn.refresh_from_db()
    assert withdrawn.research_id == "B90_FS10~W1"
    assert GenerationRun.objects.get().settings_snapshot["research_id"] == "B90_FS10"


def test_the_api_takes_the_choice_too(demo):
    withdrawn = _generated_response(withdraw=True)
    token = token_create(user=_admin(), name="lab", scope="write", days=1).plain
    body = {
        "study": withdrawn.study_id,
        "scenarios": [withdrawn.scenario_id],
        "endpoints": [withdrawn.model_id],
        "conditions": [withdrawn.condition_id],
    }
    api = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    refused = api.post("/api/v1/generation/batches", body, content_type="application/json")
    assert refused.status_code == 400 and "its response was withdrawn" in refused.json()["problems"][0]
    body["regenerate_withdrawn"] = True
    assert api.post("/api/v1/generation/batches", body, content_type="application/json").status_code == 201
    withdrawn.refresh_from_db()
    assert withdrawn.research_id == "B90_FS10~W1"

"""Model endpoints and conditions are changed through the product's pages (admins only),
each change audited with {field: [old, new]} (issue 22)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from studies.models import AuditEvent, Condition, ModelEndpoint
from tests.factories import make_response

FIELDS = {
    "name": "lab-model",
    "model_number": "42",
    "base_url": "http://127.0.0.1:9/v1",
    "model_name": "m-1",
    "api_key_env": "TEAMLLM_LLM_KEY_LAB",
    "concurrency_limit": "3",
    "timeout_seconds": "30",
    "extra_params": '{"max_tokens": 512}',
    "notes": "",
}


@pytest.fixture
def admin_client(client, demo, monkeypatch):
    # the operator bound the lab's key to the host the form names
    monkeypatch.setenv("TEAMLLM_LLM_KEY_LAB_HOSTS", "127.0.0.1:9")
    client.login(username="admin", password="demo-pass-2026")
    return client


@pytest.mark.parametrize("username", ["rater1", "researcher"])
@pytest.mark.parametrize(
    "name, args",
    [
        ("generation:endpoints", []),
        ("generation:endpoint_new", []),
        ("generation:endpoint", [1]),
        ("generation:endpoint_active", [1]),
        ("generation:endpoint_test", [1]),
        ("generation:endpoint_delete", [1]),
        ("generation:conditions", []),
        ("generation:condition_new", []),
        ("generation:condition", [1]),
        ("studies:study_settings", [1]),
    ],
)
def test_configuration_pages_are_for_admins_only(client, demo, username, name, args):
    client.login(username=username, password="demo-pass-2026")
    before = (
        AuditEvent.objects.count(),
        list(ModelEndpoint.objects.values()),
        list(Condition.objects.values()),
    )
    assert client.get(reverse(name, args=args)).status_code == 403
    assert client.post(reverse(name, args=args), {**FIELDS, "active": "0", "letter": "Z"}).status_code == 403
    after = AuditEvent.objects.count(), list(ModelEndpoint.objects.values()), list(Condition.objects.values())
    assert after == before


def test_an_admin_creates_edits_and_deactivates_an_endpoint(admin_client):
    page = admin_client.post(reverse("generation:endpoint_new"), FIELDS)
    endpoint = ModelEndpoint.objects.get(name="lab-model")
    assert page.status_code == 302 and page["Location"] == reverse("generation:endpoint", args=[endpoint.pk])
    assert endpoint.extra_params == {"max_tokens": 512} and endpoint.timeout_seconds == 30
    created = AuditEvent.objects.get(action="endpoint.create")
    assert created.actor.username == "admin" and created.target == f"studies.modelendpoint:{endpoint.pk}"
    assert created.changes["api_key_env"] == [None, "TEAMLLM_LLM_KEY_LAB"]

    edit = {**FIELDS, "model_name": "m-2", "extra_params": '{"max_tokens": 256, "stream": true}'}
    assert admin_client.post(reverse("generation:endpoint", args=[endpoint.pk]), edit).status_code == 302
    updated = AuditEvent.objects.get(action="endpoint.update")
    assert updated.changes == {
        "model_name": ["m-1", "m-2"],
        "extra_params": [{"max_tokens": 512}, {"max_tokens": 256, "stream": True}],
    }
    # saving the same values again records nothing
    admin_client.post(reverse("generation:endpoint", args=[endpoint.pk]), edit)
    assert AuditEvent.objects.filter(action="endpoint.update").count() == 1

    admin_client.post(reverse("generation:endpoint_active", args=[endpoint.pk]), {"active": "0"})
    endpoint.refresh_from_db()
    assert not endpoint.is_active
    assert AuditEvent.objects.get(action="endpoint.deactivate").changes == {"is_active": [True, False]}
    admin_client.post(reverse("generation:endpoint_active", args=[endpoint.pk]), {"active": "1"})
    endpoint.refresh_from_db()
    assert endpoint.is_active and AuditEvent.objects.filter(action="endpoint.activate").exists()
    html = admin_client.get(reverse("generation:endpoints")).content.decode()
    assert "lab-model" in html and "TEAMLLM_LLM_KEY_LAB" in html


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("api_key_env", "SECRET_KEY", "Not allowed"),
        ("api_key_env", "DATABASE_URL", "Not allowed"),
        ("extra_params", "[1, 2]", "A JSON object"),
        ("extra_params", "[" * 100000, "At most 4000 characters"),
        ("extra_params", '{"a": ' + "[" * 1900 + "]" * 1900 + "}", "Not valid JSON"),
        ("extra_params", '{"a": ' + "[" * 50 + "]" * 50 + "}", "Nested too deep"),
        ("extra_params", '{"a": NaN}', "Not valid JSON"),
        ("extra_params", '{"m": 1e999999}', "Not valid JSON"),  # Infinity: the database refused it (500)
        ("extra_params", '{"m": -1e309}', "Not valid JSON"),
        ("extra_params", '{"m": "\\ud800"}', "Not valid JSON"),  # a lone surrogate: every later page 500ed
        ("base_url", "https://user:secret@gw.example.org/v1", "No user name or password"),
        ("extra_params", '{"a": ' * 20 + "1" + "}" * 20, "Nested too deep"),
        ("model_number", "7", "Two digits"),
        (
            "model_number",
            "１２",
            "Two digits",
        ),  # fullwidth digits: "B１２_FS10" beside "B12_FS10" (pass 5, B5)
        ("model_number", "٣٣", "Two digits"),  # Arabic-Indic digits
        ("timeout_seconds", "0", "greater than or equal to 1"),
        ("notes", "n" * 2_000_000, "at most 4000 characters"),  # 2 MB of notes were kept
    ],
)
def test_an_endpoint_form_refuses_bad_values(admin_client, field, value, message):
    page = admin_client.post(reverse("generation:endpoint_new"), {**FIELDS, field: value})
    assert page.status_code == 200 and message in page.content.decode()
    assert not ModelEndpoint.objects.filter(name="lab-model").exists()
    assert not AuditEvent.objects.exists()


def test_the_model_number_is_fixed_once_responses_carry_it(admin_client):
    response = make_response(study=admin_client_study(), research_id="")
    endpoint = response.model
    # another number than the factory's (its sequence reaches 43 when many tests ran before)
    other = "43" if endpoint.model_number != "43" else "44"
    data = {**FIELDS, "name": endpoint.name, "model_number": other}
    page = admin_client.post(reverse("generation:endpoint", args=[endpoint.pk]), data)
    assert "The model number is fixed" in page.content.decode()
    endpoint.refresh_from_db()
    assert endpoint.model_number != other and not AuditEvent.objects.filter(action="endpoint.update").exists()


def admin_client_study():
    from studies.models import Study

    return Study.objects.get(name="CGPST demo")


def test_an_admin_creates_and_edits_a_condition(admin_client):
    data = {"letter": "Q", "name": "Single hot", "strategy": "single", "parameters": '{"temperature": 1.2}'}
    assert admin_client.post(reverse("generation:condition_new"), data).status_code == 302
    condition = Condition.objects.get(letter="Q")
    assert condition.parameters == {"temperature": 1.2}
    assert AuditEvent.objects.get(action="condition.create").changes["strategy"] == [None, "single"]

    bad = {**data, "parameters": '{"temperature": 7}'}
    page = admin_client.post(reverse("generation:condition", args=[condition.pk]), bad)
    assert "temperature must be a number from 0 to 2" in page.content.decode()
    unknown = {**data, "parameters": '{"rounds": 3}'}
    page = admin_client.post(reverse("generation:condition", args=[condition.pk]), unknown)
    assert "unknown parameter(s) for single: rounds" in page.content.decode()

    edit = {**data, "letter": "R", "name": "Debate", "strategy": "mad", "parameters": '{"rounds": 2}'}
    assert admin_client.post(reverse("generation:condition", args=[condition.pk]), edit).status_code == 302
    condition.refresh_from_db()
    assert (condition.letter, condition.strategy, condition.parameters) == ("Q", "mad", {"rounds": 2})
    assert AuditEvent.objects.get(action="condition.update").changes == {
        "name": ["Single hot", "Debate"],
        "strategy": ["single", "mad"],
        "parameters": [{"temperature": 1.2}, {"rounds": 2}],
    }


@pytest.mark.parametrize("parameters", ['{"language": "\\ud800"}', '{"temperature": 1e999}'])
def test_condition_parameters_the_database_cannot_store_are_refused(admin_client, parameters):
    data = {
        "letter": "Q",
        "name": "hostile",
        "strategy": "single",
        "parameters": parameters,
        "description": "",
    }
    page = admin_client.post(reverse("generation:condition_new"), data)
    assert page.status_code == 200 and "Not valid JSON" in page.content.decode()
    assert not Condition.objects.filter(letter="Q").exists()


def test_the_strategy_is_fixed_once_responses_exist(admin_client):
    from generation.services.conditions import ConditionError, condition_update

    response = make_response(study=admin_client_study())
    condition = response.condition
    with pytest.raises(ConditionError, match="strategy is fixed"):
        condition_update(condition_id=condition.pk, actor=None, values={"strategy": "mad"})
    other = "mad" if condition.strategy != "mad" else "single"
    data = {"name": "Renamed", "strategy": other, "parameters": "{}", "description": "d"}
    page = admin_client.post(reverse("generation:condition", args=[condition.pk]), data)
    assert page.status_code == 302  # the disabled strategy field keeps the old value
    condition.refresh_from_db()
    assert condition.name == "Renamed" and condition.strategy != other
    assert set(AuditEvent.objects.get(action="condition.update").changes) == {"name", "description"}


def test_the_pages_are_linked_from_the_admin_home_and_the_study(admin_client):
    home = admin_client.get(reverse("scoring:admin_home")).content.decode()
    assert reverse("generation:endpoints") in home and reverse("generation:conditions") in home
    study = admin_client_study()
    page = admin_client.get(reverse("studies:study", args=[study.pk])).content.decode()
    for url in (
        reverse("studies:study_settings", args=[study.pk]),
        reverse("generation:endpoints"),
        reverse("generation:conditions"),
        reverse("calibration:study_agreement_settings", args=[study.pk]),
    ):
        assert url in page


def test_only_an_endpoint_nothing_refers_to_can_be_deleted(admin_client):
    # 97: out of the factory's 01-89, so that make_response never picks this endpoint
    unused = ModelEndpoint.objects.create(name="unused", model_number="97")
    used = make_response(study=admin_client_study()).model
    page = admin_client.get(reverse("generation:endpoint", args=[unused.pk])).content.decode()
    assert reverse("generation:endpoint_delete", args=[unused.pk]) in page
    page = admin_client.get(reverse("generation:endpoint", args=[used.pk])).content.decode()
    assert reverse("generation:endpoint_delete", args=[used.pk]) not in page

    admin_client.post(reverse("generation:endpoint_delete", args=[used.pk]))  # the exploit: post anyway
    assert ModelEndpoint.objects.filter(pk=used.pk).exists()
    assert not AuditEvent.objects.filter(action="endpoint.delete").exists()

    admin_client.post(reverse("generation:endpoint_delete", args=[unused.pk]))
    assert not ModelEndpoint.objects.filter(pk=unused.pk).exists()
    event = AuditEvent.objects.get(action="endpoint.delete")
    assert event.target == f"studies.modelendpoint:{unused.pk}" and event.changes["name"] == ["unused", None]


def test_an_endpoint_a_judge_uses_is_not_offered_for_deletion(admin_client):
    from judging.services.judges import judge_create

    judged = ModelEndpoint.objects.create(name="judged", model_number="45", base_url="http://127.0.0.1:9/v1")
    judge_create(name="Keeps its endpoint", endpoint=judged)
    page = admin_client.get(reverse("generation:endpoint", args=[judged.pk])).content.decode()
    assert reverse("generation:endpoint_delete", args=[judged.pk]) not in page
    admin_client.post(reverse("generation:endpoint_delete", args=[judged.pk]))
    assert ModelEndpoint.objects.filter(pk=judged.pk).exists()

"""A study's TeamFusion members are entered by admins on their own page; TeamFusion
cannot start without at least two of them."""

import pytest
from django.urls import reverse

from generation.models import GenerationBatch, PreferenceProfile
from generation.services.batches import BatchError, batch_create
from studies.models import Condition, Scenario, Study
from tests.factories import stub_endpoint


@pytest.fixture
def admin_client(client, demo):
    client.login(username="admin", password="demo-pass-2026")
    return client


@pytest.fixture(autouse=True)
def without_the_demo_members(demo):
    """These tests enter the demo study's members themselves."""
    PreferenceProfile.objects.filter(study__name="CGPST demo").delete()


def url(study):
    return reverse("generation:members", args=[study.pk])


def test_admin_adds_edits_and_deletes_members(admin_client):
    study = Study.objects.get(name="CGPST demo")
    page = admin_client.get(url(study))
    assert page.status_code == 200 and "No member yet" in page.content.decode()
    response = admin_client.post(
        url(study),
        {"name": " Mia ", "preferences": "Local, concrete solutions.", "order": 1, "is_active": "on"},
    )
    assert response.status_code == 302
    mia = PreferenceProfile.objects.get(study=study)
    assert (mia.name, mia.preferences, mia.is_active) == ("Mia", "Local, concrete solutions.", True)

    edit = admin_client.get(url(study) + f"?edit={mia.pk}").content.decode()
    assert "Edit Mia" in edit and "Local, concrete solutions." in edit
    admin_client.post(url(study) + f"?edit={mia.pk}", {"name": "Mia", "preferences": "Changed.", "order": 2})
    mia.refresh_from_db()
    assert (mia.preferences, mia.order, mia.is_active) == ("Changed.", 2, False)

    listed = admin_client.get(reverse("generation:home")).content.decode()
    assert url(study) in listed
    admin_client.post(reverse("generation:member_delete", args=[study.pk, mia.pk]))
    assert not PreferenceProfile.objects.exists()


@pytest.mark.parametrize(
    "data, message",
    [
        ({"name": "Mia", "preferences": "Again.", "order": 3}, "already has a member named"),
        ({"name": "Synthesizer", "preferences": "x", "order": 3}, "name of TeamFusion"),
        ({"name": "  ", "preferences": "x", "order": 3}, "This field is required"),
        ({"name": "Bo", "preferences": "x", "order": -1}, "greater than or equal to 0"),
    ],
)
def test_bad_input_is_refused_with_a_message_and_changes_nothing(admin_client, data, message):
    study = Study.objects.get(name="CGPST demo")
    PreferenceProfile.objects.create(study=study, name="Mia", preferences="Local.")
    response = admin_client.post(url(study), data)
    assert response.status_code == 400 and message in response.content.decode()
    assert list(PreferenceProfile.objects.values_list("name", "preferences")) == [("Mia", "Local.")]


def test_unknown_ids_are_404_not_500(admin_client):
    study = Study.objects.get(name="CGPST demo")
    assert admin_client.get(url(study) + "?edit=abc").status_code == 404
    assert admin_client.get(url(study) + "?edit=999999").status_code == 404
    assert admin_client.get(reverse("generation:members", args=[999999])).status_code == 404


@pytest.mark.parametrize("username", ["rater1", "researcher"])
def test_members_page_is_for_admins_only(client, demo, username):
    client.login(username=username, password="demo-pass-2026")
    study = Study.objects.get(name="CGPST demo")
    assert client.get(url(study)).status_code == 403


def test_teamfusion_needs_two_members_of_the_study(demo, llm_stub):
    study = Study.objects.get(name="CGPST demo")
    PreferenceProfile.objects.create(study=study, name="Mia", preferences="Local.")
    PreferenceProfile.objects.create(
        study=None, name="Old", preferences="From before profiles were per study."
    )
    with pytest.raises(BatchError, match="at least two active member profiles"):
        batch_create(
            study=study,
            scenarios=[Scenario.objects.get(code="FS10")],
            endpoints=[stub_endpoint(llm_stub)],
            conditions=[Condition.objects.get(letter="F")],
            enqueue=lambda **kw: None,
        )
    assert not GenerationBatch.objects.exists()


@pytest.mark.parametrize("edit", ["²", "①", "9" * 5000, "-1", "1.0"])
def test_an_edit_parameter_that_is_no_id_is_404_not_500(admin_client, edit):
    """Hostile pass 15 (F3): "²".isdigit() is true and int("²") fails."""
    reply = admin_client.get(url(Study.objects.get(name="CGPST demo")), {"edit": edit})
    assert reply.status_code == 404

"""The generation page: admins launch batches; nobody else gets in."""

import re

import pytest
from django.urls import reverse

from generation.models import GenerationBatch, GenerationRun, PreferenceProfile
from studies.models import Condition, Scenario, Study
from tests.factories import stub_endpoint


@pytest.fixture
def admin_client(client, demo):
    client.login(username="admin", password="demo-pass-2026")
    return client


@pytest.mark.parametrize("username", ["rater1", "researcher"])
@pytest.mark.parametrize(
    "name, args", [("generation:home", []), ("generation:batch_detail", [1]), ("generation:run_detail", [1])]
)
def test_generation_pages_are_for_admins_only(client, demo, username, name, args):
    client.login(username=username, password="demo-pass-2026")
    assert client.get(reverse(name, args=args)).status_code == 403
    assert client.post(reverse("generation:home")).status_code == 403


def test_anonymous_users_are_sent_to_login(client, db):
    response = client.get(reverse("generation:home"))
    assert response.status_code == 302 and "login" in response["Location"]


def test_admin_launches_a_batch(admin_client, llm_stub, django_capture_on_commit_callbacks):
    endpoint = stub_endpoint(llm_stub)
    page = admin_client.get(reverse("generation:home"))
    assert page.status_code == 200
    # no fixed personas in the code: members are entered per study (the demo seeds two)
    assert set(PreferenceProfile.objects.values_list("study__name", "name")) == {
        ("CGPST demo", "Demo member A"),
        ("CGPST demo", "Demo member B"),
    }
    study = Study.objects.get(name="CGPST demo")
    conditions = Condition.objects.filter(letter__in=["A", "B"])
    with django_capture_on_commit_callbacks() as callbacks:
        response = admin_client.post(
            reverse("generation:home"),
            {
                "study": study.pk,
                "scenarios": [Scenario.objects.get(code="FS10").pk],
                "endpoints": [endpoint.pk],
                "conditions": [c.pk for c in conditions],
                "name": "first",
                "top_p": "paper",
            },
        )
    batch = GenerationBatch.objects.get(name="first")
    assert response.status_code == 302 and response["Location"] == reverse(
        "generation:batch_detail", args=[batch.pk]
    )
    runs = GenerationRun.objects.filter(batch=batch).order_by("condition__letter")
    assert [r.settings_snapshot["research_id"] for r in runs] == ["A90_FS10", "B90_FS10"]
    assert [r.calls_total for r in runs] == [34, 6]
    assert all(
        r.settings_snapshot["top_p"] == "paper" and r.settings_snapshot["params"]["top_p"] == 0.9
        for r in runs
    )
    assert len(callbacks) == 2  # one first task per run, enqueued on commit

    # launching the same again skips both, with the reason
    again = admin_client.post(
        reverse("generation:home"),
        {"study": study.pk, "scenarios": [Scenario.objects.get(code="FS10").pk], "endpoints": [endpoint.pk],
         "conditions": [c.pk for c in conditions], "top_p": "paper"},
    )  # fmt: skip
    assert again.status_code == 200
    assert b"already queued, running or done" in again.content
    assert GenerationBatch.objects.count() == 1


def test_endpoints_without_a_base_url_cannot_be_chosen(admin_client):
    page = admin_client.get(reverse("generation:home")).content.decode()
    launch = page.split('id="batches"', 1)[0]  # the batch list's filter names every endpoint
    assert "kimi-k2" not in launch and "kimi-k2" in page  # a paper model with no base URL yet


def test_the_page_links_to_the_products_own_endpoint_and_condition_pages(admin_client):
    """Issue 42: "Configure model endpoints" led to the Django admin (read only)."""
    page = admin_client.get(reverse("generation:home")).content.decode()
    assert f'href="{reverse("generation:endpoints")}"' in page
    assert f'href="{reverse("generation:conditions")}"' in page
    assert "/admin/" not in page


def test_the_only_endpoint_on_offer_is_ticked_already(admin_client, llm_stub):
    """Issue 42: with one usable endpoint, the launch form left it unticked."""
    from tests.factories import stub_endpoint

    stub = stub_endpoint(llm_stub)
    page = admin_client.get(reverse("generation:home")).content.decode()
    launch = page.split('id="batches"', 1)[0]
    boxes = re.findall(r'<input type="checkbox" name="endpoints" value="(\d+)"([^>]*)>', launch)
    assert boxes == [(str(stub.pk), boxes[0][1])] and "checked" in boxes[0][1], boxes

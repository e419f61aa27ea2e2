"""Issue 40: the held responses page releases or withdraws many responses in one action (the
ticked ones, or every one its filters match), all or none, each audited; and its filters
(scenario, model, condition, reason, research ID) choose what it lists and what "all" means."""

from __future__ import annotations

import pytest
from django.urls import reverse

from studies.models import AuditEvent, Condition, ResponseStatus
from studies.services.review import ReviewError, responses_release, responses_withdraw
from tests.factories import rater
from tests.studies.test_review_gate import MOCK, NO_STEP1_ITEMS, _admin, _new, _raters_of

pytestmark = pytest.mark.django_db

URL = "studies:held_responses"


@pytest.fixture
def admin_client(client, demo):
    client.login(username="admin", password="demo-pass-2026")
    return client


def _held(demo, n, answers=MOCK, start=60):
    return [_new(demo, answers, number=f"{start + i}") for i in range(n)]


def _listed(client, **query) -> list[str]:
    html = client.get(reverse(URL), query).content.decode()
    return [chunk.split('"', 1)[0] for chunk in html.split('data-research-id="')[1:]]


def test_release_several_at_once_all_audited_and_assigned(demo):
    responses = _held(demo, 3)
    released = responses_release(response_ids=[r.pk for r in responses], actor=_admin(demo))
    assert [r.response.pk for r in released] == sorted(r.pk for r in responses)
    assert all(r.assignments == 2 for r in released)  # the FS10 group's pair took each at once
    for response in responses:
        response.refresh_from_db()
        assert not response.held and _raters_of(response) == {"rater1", "rater2"}
    audited = AuditEvent.objects.filter(
        action="response.released", target__in=[f"studies.response:{r.pk}" for r in responses]
    )
    assert audited.count() == 3


def test_one_bad_id_changes_nothing(demo):
    responses = _held(demo, 2)
    withdrawn = _new(demo, MOCK, number="90")
    responses_withdraw(response_ids=[withdrawn.pk], actor=_admin(demo), reason="mock")
    for ids in ([r.pk for r in responses] + [withdrawn.pk], [r.pk for r in responses] + [10**9], []):
        with pytest.raises(ReviewError):
            responses_release(response_ids=ids, actor=_admin(demo))
    with pytest.raises(ReviewError):
        responses_release(response_ids=[r.pk for r in responses], actor=rater("rater9", "H19"))
    for response in responses:
        response.refresh_from_db()
        assert response.held and _raters_of(response) == set()
    assert not AuditEvent.objects.filter(action="response.released").exists()


def test_withdraw_several_with_a_reason(demo):
    responses = _held(demo, 2)
    responses_withdraw(response_ids=[r.pk for r in responses], actor=_admin(demo), reason="gateway mock")
    for response in responses:
        response.refresh_from_db()
        assert response.status == ResponseStatus.WITHDRAWN
    events = AuditEvent.objects.filter(
        action="response.withdrawn", target__in=[f"studies.response:{r.pk}" for r in responses]
    )
    assert [e.reason for e in events] == ["gateway mock", "gateway mock"]


def test_the_filters_choose_what_is_listed(admin_client, demo):
    mocks = _held(demo, 2)
    no_items = _new(demo, NO_STEP1_ITEMS, number="70")
    other_condition = _new(demo, MOCK, number="71", letter="B")
    everything = {r.research_id for r in [*mocks, no_items, other_condition]}
    assert set(_listed(admin_client)) == everything
    # the mock repeats one sentence in every step: held for that too, the other only for Step 1
    assert set(_listed(admin_client, reason="repeated_step")) == everything - {no_items.research_id}
    condition_b = Condition.objects.get(letter="B")
    assert _listed(admin_client, condition=condition_b.pk) == [other_condition.research_id]
    assert _listed(admin_client, model=mocks[0].model_id) == [mocks[0].research_id]
    assert _listed(admin_client, q=mocks[1].research_id[:3].lower()) == [mocks[1].research_id]
    assert set(_listed(admin_client, scenario=mocks[0].scenario_id)) == everything
    # a value that is no choice: the field says so and the list is not narrowed by it
    page = admin_client.get(reverse(URL), {"condition": "9" * 30, "reason": "<x>"})
    assert page.status_code == 200 and set(_listed(admin_client, condition="9" * 30)) == everything
    assert "Select a valid choice" in page.content.decode()


def test_bulk_from_the_page_ticked_and_all_that_match(admin_client, demo):
    mocks = _held(demo, 3)
    no_items = _new(demo, NO_STEP1_ITEMS, number="70")
    bulk = reverse("studies:held_responses_bulk")
    back = f"model={no_items.model_id}"
    # ticked: the two first, released; the page comes back with its filters
    reply = admin_client.post(
        bulk, {"action": "release", "scope": "selected", "ids": [mocks[0].pk, mocks[1].pk]}
    )
    assert reply.status_code == 302
    assert {r.pk for r in mocks[:2]} == {r.pk for r in mocks if (r.refresh_from_db() or not r.held)}
    # all that match its model: one, as the page said
    reply = admin_client.post(
        bulk, {"action": "withdraw", "scope": "matching", "expected": "1", "back": back}
    )
    assert reply["Location"] == reverse(URL) + "?" + back
    no_items.refresh_from_db()
    mocks[2].refresh_from_db()
    assert no_items.status == ResponseStatus.WITHDRAWN and mocks[2].held
    # the list changed since the page was shown: nothing is done, and the page says why
    reply = admin_client.post(
        bulk, {"action": "release", "scope": "matching", "expected": "5", "back": ""}, follow=True
    )
    mocks[2].refresh_from_db()
    assert mocks[2].held and "1 held responses match now, not 5" in reply.content.decode()


@pytest.mark.parametrize(
    "data",
    [
        {"action": "release", "scope": "selected"},  # nothing ticked
        {"action": "release", "scope": "selected", "ids": ["x"]},
        {"action": "release", "scope": "selected", "ids": ["9" * 30]},
        {"action": "publish", "scope": "selected", "ids": ["1"]},
        {"action": "release", "scope": "matching"},  # how many the page showed: missing
        {"action": "release", "scope": "matching", "expected": "1", "back": "condition=" + "9" * 30},
    ],
)
def test_bad_bulk_requests_change_nothing(admin_client, demo, data):
    response = _new(demo, MOCK, number="80")
    reply = admin_client.post(reverse("studies:held_responses_bulk"), data, follow=True)
    assert reply.status_code == 200
    assert b'class="msg msg-error"' in reply.content
    response.refresh_from_db()
    assert response.held and response.status == ResponseStatus.READY


def test_only_admins_reach_the_bulk_action(client, demo):
    response = _new(demo, MOCK, number="81")
    client.login(username="rater1", password="demo-pass-2026")
    reply = client.post(
        reverse("studies:held_responses_bulk"),
        {"action": "release", "scope": "selected", "ids": [response.pk]},
    )
    assert reply.status_code in (302, 403)
    response.refresh_from_db()
    assert response.held

"""A single-text study's held response on the held responses page: its one text (no six steps,
no step headings, no CGPST parse table), the names it gives highlighted in it; its redaction
changes that text alone (the empty Steps 2-6 are neither flagged nor versioned) and says so
without naming a step; an empty text is held for that and listed under its own reason."""

from __future__ import annotations

import pytest
from django.urls import reverse

from calibration.selectors.responses import response_history
from studies.models import ResponseTextChange
from studies.parsing import EMPTY_TEXT
from studies.review import BLIND_TEXT
from tests.factories import ModelEndpointFactory, UserFactory, text_response

pytestmark = pytest.mark.django_db

URL = reverse("studies:held_responses")
NAMING = "As Claude, I would say: keep the bedroom cool.\nGet up at the same time every day."


@pytest.fixture
def admin_client(client):
    client.force_login(UserFactory(username="boss", role="Admin"))
    return client


@pytest.fixture
def naming():
    """A text that gives its model's name: held by the blind-text check."""
    model = ModelEndpointFactory(
        name="opus-endpoint", model_number="47", model_name="anthropic/claude-opus-4.1"
    )
    response = text_response(text=NAMING, model=model)
    assert response.held and [r["code"] for r in response.hold_reasons] == [BLIND_TEXT]
    assert {step for step, spans in response.blind_spans.items() if spans} == {"1"}
    return response


def _card(page: str, response) -> str:
    return page.split(f'id="held-{response.pk}"')[1].split("</article>")[0]


def test_the_held_page_shows_the_one_text_with_the_names_highlighted(admin_client, naming):
    card = _card(admin_client.get(URL, {"study": naming.study.pk}).content.decode(), naming)
    assert "<summary>The response's text" in card and "The six steps' text" not in card
    assert card.count('<div class="answer-text">') == 1 and "<h4>Step" not in card
    assert ">Claude</mark>" in card and "I would say: keep the bedroom cool." in card
    assert "The text names “" in card and "Step 1 names" not in card
    # no CGPST parse table, and the empty Steps 2-6 are no warning
    assert "Step 1 items" not in card and "Step 5 grid" not in card and "is empty" not in card
    assert '<p class="parse-result"><strong>Warnings:</strong> none</p>' in card


def test_redacting_a_text_changes_it_alone_and_says_so_without_a_step(admin_client, naming):
    reply = admin_client.post(
        reverse("studies:response_redact", args=[naming.pk]), {"study": naming.study.pk}, follow=True
    )
    page = reply.content.decode()
    assert "redacted in the text." in page and "redacted in Step" not in page
    naming.refresh_from_db()
    assert "Claude" not in naming.step1 and naming.step1.endswith("Get up at the same time every day.")
    assert [naming.answer(n) for n in range(2, 7)] == [""] * 5
    assert list(ResponseTextChange.objects.filter(response=naming).values_list("step", flat=True)) == [1]
    assert naming.held and naming.hold_reasons == []  # read again, then released by the admin
    card = _card(page, naming)
    assert "Its text was redacted: raters will read this version" in card and "<mark" not in card
    history = [e["detail"] for e in response_history(response=naming)]
    assert any(d.endswith("redacted in the text.") for d in history)
    assert any(d.startswith("The text names “") for d in history)  # why it was held


def test_an_empty_text_is_held_for_that_and_listed_under_its_reason(admin_client):
    empty = text_response(text="  \n ")
    assert empty.held and [r["code"] for r in empty.hold_reasons] == [EMPTY_TEXT]
    card = _card(admin_client.get(URL, {"reason": EMPTY_TEXT}).content.decode(), empty)
    assert "The response&#x27;s text is empty." in card and "Step 2 is empty" not in card
    assert (
        admin_client.get(URL, {"reason": "empty_step"}).content.decode().count(f'id="held-{empty.pk}"') == 0
    )

"""Hostile pass 18 (item 2): steps of 45,000 characters made the held responses page 16 MB and
26 s. The list shows each step's first ``HELD_STEP_SHOWN`` characters and says how much is left
and how many names are marked in it; one response's whole text is shown on request."""

from __future__ import annotations

import pytest
from django.urls import reverse

from studies.blind_segments import BlindSegment, step_shown
from studies.models import Condition, Response, Scenario
from studies.selectors import HELD_PER_PAGE, HELD_STEP_SHOWN
from studies.services.responses import response_create
from tests.factories import ModelEndpointFactory

# a mock answer (held: no numbered items) whose Step 1 names a role far past the limit
FILLER = "The coast floods every spring and the town plans its dykes. "
TAIL_NAME = "As the Plant, I propose floating homes."


def _long_held(demo, number: str) -> Response:
    step1 = FILLER * (3 * HELD_STEP_SHOWN // len(FILLER)) + TAIL_NAME
    return response_create(
        study=demo.study,
        scenario=Scenario.objects.get(study=demo.study, code="FS10"),
        model=ModelEndpointFactory(model_number=number),
        condition=Condition.objects.get(letter="A"),
        answers=[step1] + ["This is a mock response from the gateway."] * 5,
        source="imported",
    )


@pytest.fixture
def admin_client(client, demo):
    client.login(username="admin", password="demo-pass-2026")
    return client


@pytest.mark.django_db
def test_a_long_step_is_cut_with_what_is_left_said_and_the_whole_text_on_request(admin_client, demo):
    response = _long_held(demo, "61")
    assert response.held and response.blind_spans["1"]  # the tail's name was found
    url = reverse("studies:held_responses")
    listed = admin_client.get(url, {"study": demo.study.pk}).content.decode()
    hidden = len(response.answers[0]) - HELD_STEP_SHOWN
    assert f"… {hidden} more characters of this step are not shown here; names marked in them: 1." in listed
    assert TAIL_NAME not in listed and 'data-term="Plant"' not in listed
    link = f"?study={demo.study.pk}&amp;whole={response.pk}#held-{response.pk}"
    assert link in listed
    whole = admin_client.get(url, {"study": demo.study.pk, "whole": response.pk}).content.decode()
    assert 'data-term="Plant"' in whole and "floating homes." in whole and "more characters" not in whole
    for junk in ("x", "9" * 30, "-1", ""):  # any other value: the cut list, never an error
        reply = admin_client.get(url, {"study": demo.study.pk, "whole": junk})
        assert reply.status_code == 200 and "not shown here" in reply.content.decode()


@pytest.mark.django_db
def test_a_page_of_long_responses_stays_small(admin_client, demo):
    for n in range(3):
        _long_held(demo, f"{70 + n}")
    page = admin_client.get(reverse("studies:held_responses"), {"study": demo.study.pk}).content
    full = sum(len(r.answers[0]) for r in Response.objects.filter(held=True))
    assert len(page) < full  # each long step cut to its first HELD_STEP_SHOWN characters
    assert HELD_PER_PAGE * 6 * HELD_STEP_SHOWN < 2_000_000  # a page's text, at most


def test_a_name_crossing_the_limit_is_shown_whole_and_counted_once():
    segments = [BlindSegment("a" * 8), BlindSegment("Plant", "role", "Plant"), BlindSegment("b" * 10),
                BlindSegment("Moderator", "role", "Moderator")]  # fmt: skip
    cut = step_shown(segments, 10)
    assert [s.text for s in cut.segments] == ["a" * 8, "Plant"]
    assert (cut.hidden, cut.hidden_names) == (19, 1)
    assert step_shown(segments, None).segments == segments and step_shown(segments, 100).hidden == 0
    plain = step_shown([BlindSegment("x" * 30)], 10)
    assert [s.text for s in plain.segments] == ["x" * 10] and (plain.hidden, plain.hidden_names) == (20, 0)

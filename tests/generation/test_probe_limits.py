"""Hostile pass 26: a connection test waited for the endpoint's pacing without a bound (10 minutes
and more, behind a busy run or an endpoint of 1 request a minute); a server's rate-limit reset of
``100000h`` held an endpoint for years; and ``extra_body`` could override the model and messages the
product sends (the SDK merges it last)."""

from __future__ import annotations

import json
import time

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from core.llm import pacing
from core.llm.client import chat_complete
from generation.services.endpoints import endpoint_update
from studies.models import AuditEvent
from tests.generation.test_egress import MESSAGES, admin, endpoint_at, servers  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db


def test_a_connection_test_does_not_wait_long_for_its_turn_and_sends_nothing(admin, servers):  # noqa: F811
    server = servers()
    endpoint = endpoint_at(server.base_url, "", requests_per_minute=1)
    url = reverse("generation:endpoint_test", args=[endpoint.pk])
    first = admin.post(url).content.decode()
    assert len(server.seen) == 1 and "did not answer" not in first
    started = time.monotonic()
    second = admin.post(url).content.decode()
    assert time.monotonic() - started < 10  # a minute's turn is not waited for
    assert "pacing holds its next request for" in second and "nothing was sent" in second
    assert len(server.seen) == 1
    tests = AuditEvent.objects.filter(action="endpoint.test").order_by("pk")
    assert [event.changes["outcome"] for event in tests] == ["answered", "paced"]


def test_a_servers_window_reset_is_believed_for_an_hour_at_most(db):
    endpoint = endpoint_at("http://127.0.0.1:9/v1", "", requests_per_minute=600)
    held = pacing.window_observe(
        endpoint, {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "100000h"}
    )
    assert held == pacing.PACING_MAX_HOLD_SECONDS + 0.25 == 3600.25
    assert 3500 < pacing.request_wait(endpoint) <= 3600.25
    short = pacing.window_observe(
        endpoint_at("http://127.0.0.1:9/v1", "", name="other"),
        {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "7s"},
    )
    assert short == 7.25


def test_extra_body_cannot_override_the_model_or_the_messages(servers):  # noqa: F811
    server = servers()
    nested = {"model": "another-model", "messages": [], "top_k": 5}
    endpoint = endpoint_at(server.base_url, "")
    with pytest.raises(ValidationError) as refused:
        endpoint_update(endpoint_id=endpoint.pk, actor=None, values={"extra_params": {"extra_body": nested}})
    assert "extra_body.messages, extra_body.model" in str(refused.value)
    # a row saved before the check, as it stands: the call drops them
    endpoint = endpoint_at(server.base_url, "", extra_params={"extra_body": nested, "seed": 3})
    chat_complete(endpoint=endpoint, messages=MESSAGES, params={}, max_attempts=1)
    sent = json.loads(server.seen[0]["body"])
    assert sent["model"] == endpoint.model_name and sent["messages"] == MESSAGES
    assert sent["top_k"] == 5 and sent["seed"] == 3  # the rest of the body as configured


def test_one_connection_test_of_an_admin_at_a_time(admin, servers):  # noqa: F811
    """Hostile pass 27: ten tests pressed at once held ten web threads for 20 s each (/healthz
    waited 7 s). A test pressed while another of the same admin runs answers at once and sends
    nothing; once the first has answered, the next runs."""
    from django.contrib.auth import get_user_model
    from django.core.cache import cache

    server = servers()
    endpoint = endpoint_at(server.base_url, "")
    url = reverse("generation:endpoint_test", args=[endpoint.pk])
    me = get_user_model().objects.get(username="admin")
    cache.add(f"endpoint-test:{me.pk}", 1, timeout=60)  # a test of this admin's still running
    try:
        page = admin.post(url).content.decode()
    finally:
        cache.delete(f"endpoint-test:{me.pk}")
    assert "Another connection test of yours is still running" in page and server.seen == []
    assert admin.post(url).status_code == 200 and len(server.seen) == 1
    outcomes = [
        e.changes["outcome"] for e in AuditEvent.objects.filter(action="endpoint.test").order_by("pk")
    ]
    assert outcomes == ["busy", "answered"]

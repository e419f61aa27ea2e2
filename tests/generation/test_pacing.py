"""Pacing per endpoint (issue 24, finding 4): requests and tokens per minute, one schedule
shared by every worker, in Redis or (``make run``) in a locked file."""

import uuid
from pathlib import Path

import pytest

from core.llm import pacing
from core.llm.client import chat_complete
from studies.models import ModelEndpoint

MESSAGES = [{"role": "user", "content": "The information for Step 1 is as follows: ..."}]


class Sleeps(list):
    def __call__(self, seconds):
        self.append(seconds)


@pytest.fixture(params=["redis", "file"])
def backend(request, settings, tmp_path):
    if request.param == "file":
        settings.REDIS_URL = ""
        settings.VAR_DIR = tmp_path
    pacing.reset_for_tests()
    yield request.param
    pacing.reset_for_tests()


def endpoint(stub, **kw):
    fields = {"name": "paced", "model_number": "91", "base_url": stub.base_url}
    return ModelEndpoint(
        **{**fields, "model_name": f"stub-{uuid.uuid4().hex[:8]}", "timeout_seconds": 5, **kw}
    )


def test_requests_are_spaced_by_sixty_over_rpm(llm_stub, backend):
    paced = endpoint(llm_stub, requests_per_minute=120)  # one every 0.5 s
    sleeps = Sleeps()
    for _ in range(4):  # the recording sleep does not sleep: each call's reservation shows
        chat_complete(endpoint=paced, messages=MESSAGES, params={}, sleep=sleeps)
    assert len(sleeps) == 3 and llm_stub.stats.requests == 4
    for n, waited in enumerate(sleeps, start=1):
        assert 0.5 * n - 0.4 <= waited <= 0.5 * n


def test_an_unpaced_endpoint_never_waits(llm_stub, backend):
    sleeps = Sleeps()
    for _ in range(3):
        chat_complete(endpoint=endpoint(llm_stub), messages=MESSAGES, params={}, sleep=sleeps)
    assert sleeps == []


def test_tokens_used_hold_the_next_call(llm_stub, backend):
    paced = endpoint(llm_stub, tokens_per_minute=600)  # 10 tokens a second
    sleeps = Sleeps()
    first = chat_complete(endpoint=paced, messages=MESSAGES, params={}, sleep=sleeps)
    used = first.prompt_tokens + first.completion_tokens
    assert sleeps == [] and used > 0
    chat_complete(endpoint=paced, messages=MESSAGES, params={}, sleep=sleeps)
    assert used / 10 - 0.5 <= sum(sleeps) <= used / 10  # slept in slices of at most 5 s


def test_the_schedule_is_shared_by_every_worker(backend, settings, tmp_path):
    # two workers = two independent connections (or file handles) to the same store
    one = pacing.schedules()
    pacing.reset_for_tests()
    other = pacing.schedules()
    assert one is not other
    key = f"shared-{uuid.uuid4().hex}:requests"
    waits = [store.advance(key, 1.0) for store in (one, other, one, other)]
    assert waits[0] == pytest.approx(0, abs=0.2)
    for n, waited in enumerate(waits[1:], start=1):
        assert n - 0.3 <= waited <= n
    if backend == "file":
        assert any(Path(settings.VAR_DIR).rglob("*.json"))


@pytest.mark.parametrize(
    "headers, held",
    [
        ({"x-ratelimit-remaining-requests": "1", "x-ratelimit-reset-requests": "7s"}, 7.25),
        ({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1m0s"}, 60.25),
        ({"x-ratelimit-remaining-requests": "5", "x-ratelimit-reset-requests": "7s"}, 0.0),
        ({}, 0.0),
    ],
)
def test_a_window_the_server_says_is_used_up_holds_the_next_request(llm_stub, backend, headers, held):
    """Issue 37, finding 5: LiteLLM's proxy counts per window and refuses the request that would
    reach its limit; it says how many remain. Believed, the next request waits for the reset."""
    llm_stub.configure(answer_headers=headers)
    paced = endpoint(llm_stub, requests_per_minute=600)  # spacing 0.1 s: the window decides
    sleeps = Sleeps()
    chat_complete(endpoint=paced, messages=MESSAGES, params={}, sleep=sleeps)
    assert sleeps == []
    chat_complete(endpoint=paced, messages=MESSAGES, params={}, sleep=sleeps)
    assert held - 0.5 <= sum(sleeps) <= max(held, 0.1)


def test_without_a_reset_the_window_is_the_calendar_minute(llm_stub, backend):
    llm_stub.configure(answer_headers={"x-ratelimit-remaining-requests": "1"})
    paced = endpoint(llm_stub)
    assert pacing.window_observe(paced, {"x-ratelimit-remaining-requests": "1"}, now=1_000_000_040.0) == 40.25
    assert pacing.window_observe(paced, {"x-ratelimit-remaining-requests": "1"}, now=1_000_000_079.5) == 0.75

"""Every rate-limit hint a provider or a gateway sends is read (issue 24, finding 4), the retry
budget is counted in seconds, and a timeout says how long it waited."""

from types import SimpleNamespace

import pytest

from core.llm.client import LLMError, chat_complete
from core.llm.hints import duration_seconds, retry_after_seconds
from studies.models import ModelEndpoint

MESSAGES = [{"role": "user", "content": "The information for Step 1 is as follows: ..."}]


def endpoint(stub, **kw):
    fields = {"name": "stub", "model_number": "90", "base_url": stub.base_url, "model_name": "stub-cgpst"}
    return ModelEndpoint(**{**fields, "timeout_seconds": 5, **kw})


class Sleeps(list):
    def __call__(self, seconds):
        self.append(seconds)


class Headers(dict):
    """Case-insensitive like the SDK's response headers."""

    def get(self, name, default=None):
        return super().get(name.lower(), default)


def rate_limited(headers: dict[str, str]):
    # the shape the SDK's error has: .response.headers (the over-HTTP tests below use the real one)
    headers = Headers({k.lower(): v for k, v in headers.items()})
    return SimpleNamespace(response=SimpleNamespace(headers=headers))


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("6m0s", 360.0), ("1s", 1.0), ("20ms", 0.02), ("1h2m3.5s", 3723.5), ("2.5", 2.5), ("0s", 0.0)],
)
def test_openai_reset_durations_are_read(text, seconds):
    assert duration_seconds(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "soon", "6x", "m5"])
def test_unreadable_durations_are_none(text):
    assert duration_seconds(text) is None


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after-ms": "1500"}, 1.5),
        ({"llm_provider-retry-after": "60"}, 60.0),  # LiteLLM passing the provider's on
        ({"retry-after": "1", "llm_provider-retry-after": "60"}, 60.0),  # the longest explicit hint
        ({"x-ratelimit-reset-requests": "6m0s", "x-ratelimit-remaining-requests": "0"}, 360.0),
        (
            {
                "x-ratelimit-reset-requests": "1s",
                "x-ratelimit-remaining-requests": "59",
                "x-ratelimit-reset-tokens": "12s",
                "x-ratelimit-remaining-tokens": "0",
            },
            12.0,  # the tokens ran out, not the requests
        ),
        ({"x-ratelimit-reset-tokens": "750ms"}, 0.75),
        ({"retry-after": "2", "x-ratelimit-reset-requests": "6m0s"}, 2.0),  # explicit wins
        ({}, None),
    ],
)
def test_every_hint_is_read(headers, seconds):
    got = retry_after_seconds(rate_limited(headers))
    assert got == (pytest.approx(seconds) if seconds is not None else None)


@pytest.mark.parametrize(
    "headers",
    [{"llm_provider-retry-after": "0.3"}, {"x-ratelimit-reset-requests": "300ms"}],
)
def test_a_gateways_hint_is_honoured_over_real_http(llm_stub, headers):
    llm_stub.configure(fail_first=2, faults=["429"], rate_limit_headers=headers)
    sleeps = Sleeps()
    result = chat_complete(endpoint=endpoint(llm_stub), messages=MESSAGES, params={}, sleep=sleeps)
    assert result.attempts == 3
    assert len(sleeps) == 2 and all(0.3 <= s <= 0.3 * 1.1 for s in sleeps)


def test_the_retry_budget_in_seconds_ends_a_call_that_would_wait_too_long(llm_stub):
    # the gateway asks for 60 s; the endpoint allows 30 s of waiting in all: fail at once, say why
    llm_stub.configure(fail_first=5, faults=["429"], rate_limit_headers={"llm_provider-retry-after": "60"})
    sleeps = Sleeps()
    with pytest.raises(LLMError) as info:
        chat_complete(
            endpoint=endpoint(llm_stub, retry_budget_seconds=30),
            messages=MESSAGES,
            params={},
            sleep=sleeps,
        )
    assert sleeps == [] and info.value.attempts == 1 and llm_stub.stats.requests == 1
    message = str(info.value)
    assert message.startswith("The provider call failed after 1 attempt in ")
    assert "rate limited (HTTP 429): Rate limit reached" in message
    assert "retry budget (30 s, 0.0 s used)" in message and message.count("429") == 1


def test_a_budget_that_fits_waits_as_long_as_the_gateway_asks(llm_stub, settings):
    settings.LLM_BACKOFF_MAX_SECONDS = 0.5  # the hint is longer than any backoff: it must be obeyed
    llm_stub.configure(fail_first=2, faults=["429"], rate_limit_headers={"llm_provider-retry-after": "60"})
    sleeps = Sleeps()
    result = chat_complete(
        endpoint=endpoint(llm_stub, retry_budget_seconds=200), messages=MESSAGES, params={}, sleep=sleeps
    )
    assert result.attempts == 3
    assert 120 <= sum(sleeps) <= 132 and max(sleeps) <= 5  # slept in slices, the heartbeat beaten


def test_a_timeout_says_how_long_it_waited(llm_stub, settings):
    settings.LLM_MAX_ATTEMPTS = 1
    llm_stub.configure(fail_first=1, faults=["timeout"], timeout_seconds=3)
    with pytest.raises(LLMError) as info:
        chat_complete(endpoint=endpoint(llm_stub, timeout_seconds=1), messages=MESSAGES, params={})
    assert "no answer within 1 s (the endpoint's timeout)" in str(info.value)

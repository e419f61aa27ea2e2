"""Provider calls through the openai SDK to the stub over real HTTP: retries,
backoff, Retry-After, reasoning kept apart, clear final errors, the key never leaked."""

import pytest

from core.llm.client import LLMError, MissingAPIKey, chat_complete
from studies.models import ModelEndpoint
from tests.egress import bind_key

MESSAGES = [
    {
        "role": "system",
        "content": "The future scenario for this task is as follows:\n```\nOcean plankton soup\n```",
    },
    {"role": "user", "content": "The information for Step 1 is as follows: ..."},
]
PARAMS = {"temperature": 0.5, "top_p": 0.9}


def endpoint(stub, **kw):
    fields = {"name": "stub", "model_number": "90", "base_url": stub.base_url, "model_name": "stub-cgpst"}
    return ModelEndpoint(**{**fields, "timeout_seconds": 5, **kw})


class Sleeps(list):
    def __call__(self, seconds):
        self.append(seconds)


def test_a_plain_call_returns_text_tokens_and_one_attempt(llm_stub):
    result = chat_complete(endpoint=endpoint(llm_stub), messages=MESSAGES, params=PARAMS)
    assert result.text.startswith("[Synthetic reply · Step 1")
    assert "1. " in result.text and result.reasoning == ""
    assert result.attempts == 1 and result.prompt_tokens > 0 and result.completion_tokens > 0


@pytest.mark.parametrize("stream", [False, True])
def test_reasoning_content_is_kept_apart_from_the_answer(llm_stub, stream):
    llm_stub.configure(reasoning=True)
    result = chat_complete(
        endpoint=endpoint(llm_stub, extra_params={"stream": stream}), messages=MESSAGES, params=PARAMS
    )
    assert result.reasoning.startswith("(synthetic reasoning)")
    assert "synthetic reasoning" not in result.text
    assert result.text.startswith("[Synthetic reply · Step 1")
    assert result.completion_tokens > 0


def test_inline_think_tags_are_split_from_the_answer(llm_stub):
    result = chat_complete(
        endpoint=endpoint(llm_stub, model_name="stub-think"), messages=MESSAGES, params=PARAMS
    )
    assert result.reasoning.startswith("(synthetic reasoning)")
    assert result.text.startswith("[Synthetic reply · Step 1") and "<think>" not in result.text


def test_endpoint_extra_params_go_into_the_request(llm_stub):
    chat_complete(
        endpoint=endpoint(llm_stub, extra_params={"max_tokens": 321}), messages=MESSAGES, params=PARAMS
    )
    body = llm_stub.stats.last_body
    assert body["max_tokens"] == 321 and body["temperature"] == 0.5 and body["top_p"] == 0.9
    assert body["model"] == "stub-cgpst" and body["messages"] == MESSAGES


def test_provider_specific_params_reach_the_request_through_the_sdk(llm_stub):
    # parameters the SDK's create() does not know travel in extra_body, i.e. in the same JSON body
    chat_complete(
        endpoint=endpoint(llm_stub, extra_params={"enable_thinking": False, "top_k": 20}),
        messages=MESSAGES,
        params=PARAMS,
    )
    body = llm_stub.stats.last_body
    assert body["enable_thinking"] is False and body["top_k"] == 20
    assert body["temperature"] == PARAMS["temperature"]


def test_a_429_storm_is_ridden_out_honouring_retry_after(llm_stub):
    llm_stub.configure(fail_first=3, faults=["429"], retry_after=0.2)
    sleeps = Sleeps()
    result = chat_complete(endpoint=endpoint(llm_stub), messages=MESSAGES, params=PARAMS, sleep=sleeps)
    assert result.attempts == 4
    assert len(sleeps) == 3 and all(0.2 <= s <= 0.2 * 1.1 for s in sleeps)
    assert llm_stub.stats.faults["429"] == 3


def test_5xx_timeouts_and_empty_replies_are_retried_with_growing_backoff(llm_stub, settings):
    settings.LLM_BACKOFF_BASE_SECONDS = 0.01
    settings.LLM_BACKOFF_MAX_SECONDS = 10
    settings.LLM_MAX_ATTEMPTS = 5
    llm_stub.configure(fail_first=3, faults=["500", "timeout", "empty"], timeout_seconds=3)
    sleeps = Sleeps()
    result = chat_complete(
        endpoint=endpoint(llm_stub, timeout_seconds=1), messages=MESSAGES, params=PARAMS, sleep=sleeps
    )
    assert result.attempts == 4 and result.text
    assert dict(llm_stub.stats.faults) == {"500": 1, "timeout": 1, "empty": 1}
    assert len(sleeps) == 3
    assert all(0.01 * 2**i / 2 <= s <= 0.01 * 2**i for i, s in enumerate(sleeps))  # doubling, jittered


def test_a_dead_provider_gives_a_clear_error_after_the_retry_budget(llm_stub, settings):
    settings.LLM_MAX_ATTEMPTS = 3
    llm_stub.configure(fail_after=0)
    with pytest.raises(LLMError) as info:
        chat_complete(endpoint=endpoint(llm_stub), messages=MESSAGES, params=PARAMS, sleep=lambda s: None)
    assert info.value.attempts == 3
    message = str(info.value)
    assert message.startswith("The provider call failed after 3 attempts in ")
    assert "of it waiting to retry): server error (HTTP 500): The server had an error" in message
    # said once: no SDK "Error code: 500 - {...}" wrapping the same status again
    assert message.count("500") == 1 and "Error code" not in message and "{" not in message
    assert llm_stub.stats.requests == 3


class ProviderDown:
    """A fake clock for the retry loop's waits: the provider answers 500 until ``seconds``
    of waiting have passed, then recovers."""

    def __init__(self, stub, seconds: float):
        self.stub, self.seconds, self.clock, self.sleeps = stub, seconds, 0.0, []
        stub.configure(fail_after=0)

    def __call__(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.clock += seconds
        if self.clock >= self.seconds:
            self.stub.configure(fail_after=None)


def test_a_provider_down_for_a_minute_is_waited_for_within_the_default_budget(llm_stub, settings):
    """Issue 37: six attempts with a 1 s base were spent in 29 s; the budget (600 s) now decides."""
    settings.LLM_MAX_ATTEMPTS = 0  # the product's default: the budget counts, not the attempts
    settings.LLM_BACKOFF_BASE_SECONDS, settings.LLM_BACKOFF_MAX_SECONDS = 1.0, 60.0
    settings.LLM_RETRY_BUDGET_SECONDS = 600
    down = ProviderDown(llm_stub, 60)
    result = chat_complete(endpoint=endpoint(llm_stub), messages=MESSAGES, params=PARAMS, sleep=down)
    assert result.text and result.attempts == llm_stub.stats.requests > 6
    assert 60 <= down.clock <= 60 + 60  # back within one backoff of the provider's return


def test_the_last_backoff_ends_with_the_budget(llm_stub, settings):
    """A provider that stays down is tried until the budget is spent, the last wait cut to fit."""
    settings.LLM_MAX_ATTEMPTS = 0
    settings.LLM_BACKOFF_BASE_SECONDS, settings.LLM_BACKOFF_MAX_SECONDS = 1.0, 60.0
    down = ProviderDown(llm_stub, float("inf"))
    with pytest.raises(LLMError) as info:
        chat_complete(
            endpoint=endpoint(llm_stub, retry_budget_seconds=100),
            messages=MESSAGES,
            params=PARAMS,
            sleep=down,
        )
    assert down.clock == pytest.approx(100)  # the budget, used whole
    assert info.value.attempts == llm_stub.stats.requests > 6
    assert str(info.value).endswith(
        "(synthetic fault from llm_stub). The endpoint's retry budget (100 s) is spent."
    )


def test_client_errors_are_not_retried(llm_stub):
    llm_stub.configure(require_key="the-right-key")
    with pytest.raises(LLMError) as info:
        chat_complete(endpoint=endpoint(llm_stub), messages=MESSAGES, params=PARAMS)
    assert info.value.attempts == 1 and not info.value.retryable
    assert str(info.value).startswith("The provider refused the request (HTTP 401): Incorrect API key")
    assert str(info.value).count("401") == 1
    assert llm_stub.stats.requests == 1


def test_the_key_comes_from_the_named_variable_and_is_redacted_from_errors(llm_stub, monkeypatch):
    secret = "sk-test-6f1d0c2e9b8a7f65"
    bind_key(monkeypatch, "TEAMLLM_LLM_KEY_TEST_PROVIDER", secret, to=llm_stub.base_url)
    llm_stub.configure(require_key=secret)
    result = chat_complete(
        endpoint=endpoint(llm_stub, api_key_env="TEAMLLM_LLM_KEY_TEST_PROVIDER"),
        messages=MESSAGES,
        params=PARAMS,
    )
    assert result.text and llm_stub.stats.auth_headers[-1] == f"Bearer {secret}"
    # a wrong key: the provider echoes it in its error, we do not
    llm_stub.configure(require_key="another-key")
    with pytest.raises(LLMError) as info:
        chat_complete(
            endpoint=endpoint(llm_stub, api_key_env="TEAMLLM_LLM_KEY_TEST_PROVIDER"),
            messages=MESSAGES,
            params=PARAMS,
        )
    assert secret not in str(info.value) and "[redacted]" in str(info.value)
    assert info.value.__cause__ is None and info.value.__context__ is None  # no SDK error rides along


def test_a_missing_key_variable_is_a_clear_error_and_nothing_is_sent(llm_stub, monkeypatch):
    monkeypatch.delenv("TEAMLLM_LLM_KEY_TEST_UNSET", raising=False)
    with pytest.raises(
        MissingAPIKey, match="environment variable TEAMLLM_LLM_KEY_TEST_UNSET, which is not set"
    ):
        chat_complete(
            endpoint=endpoint(llm_stub, api_key_env="TEAMLLM_LLM_KEY_TEST_UNSET"),
            messages=MESSAGES,
            params=PARAMS,
        )
    assert llm_stub.stats.requests == 0

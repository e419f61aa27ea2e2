"""Generation and the LLM judge through a real gateway, LiteLLM's proxy with a master key, in
front of the stub: plain calls, its mock errors and its rpm limit (issue 24, finding 4). The
gateway's key is bound to the gateway's host and port, as an operator binds it (issue 36)."""

import pytest

from calibration.models import FinalScore
from core.llm.client import EgressNotAllowed, LLMError, chat_complete
from generation.models import RunStatus
from generation.services.batches import batch_create
from generation.services.runs import run_step
from generation.tasks import run_advance_send
from judging.models import JudgeBatchStatus
from judging.selectors.estimates import judge_estimates_get
from judging.services.judges import judge_create
from judging.services.runs import judge_batch_launch, judge_task_run
from research.significance import default_pair
from studies.models import Condition, ModelEndpoint, Scenario, Study
from tests.egress import bind_key
from tests.gateway import MASTER_KEY, RPM_LIMIT

KEY_ENV = "TEAMLLM_LLM_KEY_GATEWAY"
MESSAGES = [{"role": "user", "content": "The information for Step 1 is as follows: ..."}]


class Sleeps(list):
    def __call__(self, seconds):
        self.append(seconds)


@pytest.fixture
def gateway(litellm_gateway, monkeypatch):
    # TEAMLLM_LLM_KEY_GATEWAY=<master key>, TEAMLLM_LLM_KEY_GATEWAY_HOSTS=127.0.0.1:<its port>
    bind_key(monkeypatch, KEY_ENV, MASTER_KEY, to=litellm_gateway.base_url)
    return litellm_gateway


def gateway_endpoint(gateway, model="stub-cgpst", **kw) -> ModelEndpoint:
    fields = {
        "model_number": "90",
        "base_url": gateway.base_url,
        "model_name": model,
        "api_key_env": KEY_ENV,
        "concurrency_limit": 4,
        "timeout_seconds": 30.0,
        **kw,
    }
    return ModelEndpoint.objects.update_or_create(name="stub", defaults=fields)[0]


def test_a_generation_run_goes_through_the_gateway(
    demo, gateway, llm_stub, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False):
        run = batch_create(
            study=Study.objects.get(name="CGPST demo"),
            scenarios=[Scenario.objects.get(code="FS10")],
            endpoints=[gateway_endpoint(gateway)],
            conditions=[Condition.objects.get(letter="B")],
            enqueue=run_advance_send,
        ).runs[0]
    seq = 0
    while (outcome := run_step(run_id=run.pk, seq=seq)).kind == "advanced":
        seq = outcome.next_seq
    run.refresh_from_db()
    assert outcome.kind == "finished" and run.status == RunStatus.SUCCEEDED, run.error
    assert run.calls_done == 6 and llm_stub.stats.requests == 6  # every call reached the stub
    assert all(t.reply.startswith("[Synthetic reply · ") for t in run.turns.all())
    assert all(t.prompt_tokens > 0 for t in run.turns.all())  # usage passed on by the gateway


def test_the_judge_goes_through_the_gateway(demo, gateway, llm_stub):
    judge = judge_create(name="gateway judge", endpoint=gateway_endpoint(gateway), provider_family="stub")
    batch = judge_batch_launch(study=Study.objects.get(name="CGPST demo"), judge=judge)
    assert [judge_task_run(task_id=t.pk) for t in batch.tasks.all()] == ["succeeded"] * batch.tasks.count()
    batch.refresh_from_db()
    assert batch.status == JudgeBatchStatus.FINISHED
    assert llm_stub.stats.last_body["response_format"]["type"] == "json_schema"  # passed through
    # the judge's scores through the gateway feed the estimates with the humans (issue 39)
    estimates = judge_estimates_get(study=batch.study, judge=judge, pair_rule=default_pair)
    assert estimates.n_judged == batch.tasks.count() > 0
    assert sum(c.estimate.n_human + c.estimate.n_judge_only for c in estimates.cells) == estimates.n_judged
    assert estimates.n_human == FinalScore.objects.filter(response__study=batch.study).count()


def test_the_gateways_rpm_limit_is_waited_out_as_it_asks(db, gateway, llm_stub):
    # LiteLLM refuses past its rpm limit with a 429 and `llm_provider-retry-after: 60`; the client
    # reads it (it read only `retry-after` before) and waits a minute rather than ~25 s of backoff.
    endpoint = gateway_endpoint(gateway, model="stub-rpm", retry_budget_seconds=30)
    sleeps = Sleeps()
    calls = 0
    with pytest.raises(LLMError) as info:
        for calls in range(1, RPM_LIMIT + 3):  # noqa: B007 - counted to the refusal
            chat_complete(endpoint=endpoint, messages=MESSAGES, params={}, sleep=sleeps)
    assert calls <= RPM_LIMIT + 1 and sleeps == []  # 60 s is beyond the 30 s budget: no wait at all
    message = str(info.value)
    assert message.startswith("The provider call failed after 1 attempt in ")
    assert "rate limited (HTTP 429): litellm.RateLimitError" in message
    assert "The next retry would wait 6" in message and "retry budget (30 s" in message
    assert "Error code" not in message and message.count("HTTP 429") == 1
    assert MASTER_KEY not in message


def test_with_budget_the_gateways_minute_is_waited_in_full(db, gateway):
    endpoint = gateway_endpoint(gateway, model="mock-429", retry_budget_seconds=200)
    sleeps = Sleeps()
    with pytest.raises(LLMError) as info:
        chat_complete(endpoint=endpoint, messages=MESSAGES, params={}, max_attempts=2, sleep=sleeps)
    assert info.value.attempts == 2
    assert "rate limited (HTTP 429): litellm.RateLimitError: this is a mock rate limit error" in str(
        info.value
    )


def test_a_gateway_server_error_is_retried_then_said_once(db, gateway, settings):
    settings.LLM_MAX_ATTEMPTS = 3
    endpoint = gateway_endpoint(gateway, model="mock-500")
    with pytest.raises(LLMError) as info:
        chat_complete(endpoint=endpoint, messages=MESSAGES, params={}, sleep=lambda s: None)
    message = str(info.value)
    assert info.value.attempts == 3 and message.startswith("The provider call failed after 3 attempts in ")
    assert "server error (HTTP 500): litellm.InternalServerError" in message
    assert message.count("HTTP 500") == 1 and "Error code" not in message


def test_the_gateways_key_goes_to_the_gateway_only(db, gateway, llm_stub):
    """The master key is bound to the gateway's port: an endpoint that names it but points at
    the stub behind the gateway (the same host, another port) sends nothing."""
    endpoint = gateway_endpoint(gateway, base_url=llm_stub.base_url)
    with pytest.raises(EgressNotAllowed) as refused:
        chat_complete(endpoint=endpoint, messages=MESSAGES, params={})
    assert f"{KEY_ENV}_HOSTS" in str(refused.value) and f"127.0.0.1:{gateway.port}" in str(refused.value)
    assert llm_stub.stats.requests == 0 and MASTER_KEY not in str(llm_stub.stats.auth_headers)


def test_a_wrong_master_key_is_refused_at_once_and_redacted(db, gateway, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-wrong-key-0123456789abcdef")
    with pytest.raises(LLMError) as info:
        chat_complete(endpoint=gateway_endpoint(gateway), messages=MESSAGES, params={})
    assert not info.value.retryable and info.value.attempts == 1
    # without a database LiteLLM answers a key that is not its master key with a 400
    assert str(info.value).startswith("The provider refused the request (HTTP 4")
    assert "sk-wrong-key-0123456789abcdef" not in str(info.value)

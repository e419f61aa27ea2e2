"""Finding 2 of issue 22: an endpoint cannot make a worker send a secret of its
environment to a host, and any credential a provider or gateway echoes is redacted
from stored errors and pages."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from core.llm.client import KeyNotAllowed, LLMError, chat_complete
from core.llm.keys import api_key_env_allowed
from core.llm.redaction import redact_credentials
from generation.services import engine
from generation.services.endpoints import endpoint_create, endpoint_test_connection
from judging.services import runs as judging_runs
from studies.models import AuditEvent, ModelEndpoint
from tests.egress import Recorder, bind_key

SECRET = "django-insecure-Xy7pQ2mN9vB4kL8wR3tZ6yH1jF5gD0sA"
KEY = "sk-live-7Q2vX9kLm3Np8Rt5Wz1Yb4Hc6Jd0Fg"
OTHER = "sk-proj-Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0"


ECHO = (
    "Invalid credentials: you sent '{auth}'; upstream used "
    f"{OTHER} (https://gw.example/v1?api_key={OTHER}&x=1)"
)


@pytest.fixture
def recorder():
    """A local HTTP server that keeps the headers of every request; in ``echo`` mode it
    answers 401 with the Authorization header (and other credentials) in the body, as
    some gateways do; ``{auth}`` in ``answer`` is the Authorization header it got."""
    servers = []

    def start(echo: bool = False, answer: str = "Hello.") -> Recorder:
        server = Recorder(status=401, body=ECHO) if echo else Recorder(answer=answer)
        servers.append(server.start())
        return server

    yield start
    for server in servers:
        server.stop()


def hostile_endpoint(base_url: str, variable: str) -> ModelEndpoint:
    """A row as an old admin form (or the Django admin) could save it: no validation."""
    return ModelEndpoint.objects.create(
        name=f"evil-{variable.lower()}",
        model_number="77" if variable == "SECRET_KEY" else "78",
        base_url=base_url,
        model_name="m",
        api_key_env=variable,
        timeout_seconds=5,
    )


@pytest.mark.parametrize("variable", ["SECRET_KEY", "DATABASE_URL"])
def test_an_endpoint_naming_a_secret_never_sends_it(db, recorder, monkeypatch, variable):
    monkeypatch.setenv(variable, SECRET)
    server = recorder()
    endpoint = hostile_endpoint(server.base_url, variable)

    with pytest.raises(KeyNotAllowed) as refused:
        chat_complete(endpoint=endpoint, messages=[{"role": "user", "content": "hi"}], params={})
    assert variable in str(refused.value) and "TEAMLLM_LLM_KEY_" in str(refused.value)
    check = endpoint_test_connection(endpoint=endpoint, actor=None)
    assert not check.ok and "not allowed" in check.error

    # the server saw nothing at all, so certainly not the secret
    assert server.seen == []
    assert SECRET not in json.dumps(server.seen)


def test_a_prefixed_key_is_sent_and_nothing_else(db, recorder, monkeypatch):
    monkeypatch.setenv("SECRET_KEY", SECRET)
    server = recorder()
    bind_key(monkeypatch, "TEAMLLM_LLM_KEY_TEST", KEY, to=server.base_url)
    endpoint = hostile_endpoint(server.base_url, "SECRET_KEY")
    endpoint.api_key_env = "TEAMLLM_LLM_KEY_TEST"
    endpoint.save()
    check = endpoint_test_connection(endpoint=endpoint, actor=None)
    assert check.ok and check.answer == "Hello."
    assert [h["authorization"] for h in server.seen] == [f"Bearer {KEY}"]
    assert SECRET not in json.dumps(server.seen)


def test_the_prefix_is_enforced_by_the_model_and_the_service(db, settings):
    assert api_key_env_allowed("") and api_key_env_allowed("TEAMLLM_LLM_KEY_OPENAI")
    for name in ("SECRET_KEY", "DATABASE_URL", "REDIS_URL", "AWS_SECRET_ACCESS_KEY", "TEAMLLM_LLM_KEY_"):
        assert not api_key_env_allowed(name)
        with pytest.raises(ValidationError):
            endpoint_create(
                actor=None,
                values={
                    "name": "x",
                    "model_number": "55",
                    "base_url": "http://h/v1",
                    "model_name": "m",
                    "api_key_env": name,
                },
            )
    assert not ModelEndpoint.objects.filter(name="x").exists()
    assert not AuditEvent.objects.filter(action="endpoint.create").exists()
    settings.LLM_KEY_ENV_PREFIX = "LAB_"
    assert api_key_env_allowed("LAB_OPENAI") and not api_key_env_allowed("TEAMLLM_LLM_KEY_OPENAI")
    settings.LLM_KEY_ENV_PREFIX = ""  # an empty prefix allows no variable, not all of them
    assert not api_key_env_allowed("SECRET_KEY")


def test_an_old_row_is_shown_as_not_allowed(client, demo, recorder):
    hostile_endpoint(recorder().base_url, "SECRET_KEY")
    client.login(username="admin", password="demo-pass-2026")
    html = client.get(reverse("generation:endpoints")).content.decode()
    assert "not allowed" in html and "evil-secret_key names the variable SECRET_KEY" in html


def test_a_key_echoed_by_a_gateway_is_not_shown_on_the_page(client, demo, recorder, monkeypatch):
    server = recorder(echo=True)
    bind_key(monkeypatch, "TEAMLLM_LLM_KEY_TEST", KEY, to=server.base_url)
    endpoint = ModelEndpoint.objects.create(
        name="echo",
        model_number="79",
        base_url=server.base_url,
        model_name="m",
        api_key_env="TEAMLLM_LLM_KEY_TEST",
        timeout_seconds=5,
    )
    client.login(username="admin", password="demo-pass-2026")
    html = client.post(reverse("generation:endpoint_test", args=[endpoint.pk])).content.decode()
    assert server.seen[0]["authorization"] == f"Bearer {KEY}"  # the gateway got the key and echoed it
    # the page says the status, never the body of a non-2xx answer (issue 36)
    assert "The server answered HTTP 401. Check the key." in html
    assert KEY not in html and OTHER not in html and "Invalid credentials" not in html


def test_stored_errors_and_pages_are_redacted_whoever_echoed_them(client, demo, llm_stub):
    """A run's error is stored through redact_credentials, and the run and batch pages
    redact errors stored before (by an older version)."""
    from generation.services import runs as generation_runs
    from generation.services.batches import batch_create
    from studies.models import Condition, Scenario, Study
    from tests.factories import stub_endpoint

    def launch():
        return batch_create(
            study=Study.objects.get(name="CGPST demo"),
            scenarios=[Scenario.objects.get(code="FS10")],
            endpoints=[stub_endpoint(llm_stub)],
            conditions=[Condition.objects.get(letter="B")],
            enqueue=lambda *args, **kwargs: None,
        ).runs[0]

    text = f"HTTP 401: bad key Bearer {OTHER}; key={KEY}"
    run = launch()
    generation_runs._run_fail(run.pk, text)
    run.refresh_from_db()
    assert run.status == "failed" and "HTTP 401" in run.error
    assert OTHER not in run.error and KEY not in run.error and "[redacted]" in run.error

    old = launch()
    type(old).objects.filter(pk=old.pk).update(status="failed", error=text)  # stored unredacted
    client.login(username="admin", password="demo-pass-2026")
    for url in (
        reverse("generation:run_detail", args=[old.pk]),
        reverse("generation:batch_detail", args=[old.batch_id]),
    ):
        html = client.get(url).content.decode()
        assert "HTTP 401" in html and OTHER not in html and KEY not in html


def test_judging_tasks_store_errors_redacted(db, monkeypatch):
    saved = []

    class Rows:
        def update(self, **values):
            saved.append(values)
            return 1

    monkeypatch.setattr(judging_runs.JudgeTask.objects, "filter", lambda **kw: Rows())
    engine.job_end(
        kind=judging_runs.JUDGE_KIND,
        job_id=1,
        status="failed",
        error=f"Sample 1, attempt 1: HTTP 401: you sent Bearer {OTHER}",
    )
    assert OTHER not in saved[0]["error"] and "Bearer [redacted]" in saved[0]["error"]


@pytest.mark.parametrize(
    "text, secret",
    [
        (f"Incorrect API key provided: {KEY}.", KEY),
        ("Authorization: Bearer abc.def-ghi_123456", "abc.def-ghi_123456"),
        ("https://x.org/v1?key=AIzaSyD-abcdefghijklmnopqrstuvwxyz012345&alt=json", "AIzaSyD"),
        ('{"api_key": "abcd1234efgh"}', "abcd1234efgh"),
        ("Invalid token 9f8e7d6c5b4a39281706f5e4d3c2b1a0 given", "9f8e7d6c5b4a"),
        ("cannot connect to redis://:s3cretpw@redis:6379/0", "s3cretpw"),
        (f"upstream said {SECRET}", SECRET),
        ("AKIAIOSFODNN7EXAMPLE was refused", "AKIAIOSFODNN7EXAMPLE"),
        ("The key you provided, plainvalue, is invalid", "plainvalue"),
    ],
)
def test_redact_credentials(text, secret):
    redacted = redact_credentials(text, ["plainvalue"])
    assert secret not in redacted and "[redacted]" in redacted


def test_redaction_keeps_ordinary_errors_readable():
    for text in (
        "HTTP 404: model gpt-4o-mini-2024-07-18 not found",
        "HTTP 400: invalid_request_error: max_tokens must be at most 4096",
        "the provider did not answer within the timeout",
    ):
        assert redact_credentials(text) == text


def test_llm_errors_carry_no_key(db, recorder, monkeypatch):
    server = recorder(echo=True)
    bind_key(monkeypatch, "TEAMLLM_LLM_KEY_TEST", KEY, to=server.base_url)
    endpoint = ModelEndpoint.objects.create(
        name="echo2",
        model_number="80",
        base_url=server.base_url,
        model_name="m",
        api_key_env="TEAMLLM_LLM_KEY_TEST",
        timeout_seconds=5,
    )
    with pytest.raises(LLMError) as failed:
        chat_complete(endpoint=endpoint, messages=[{"role": "user", "content": "hi"}], params={})
    message = str(failed.value)
    assert "HTTP 401" in message and KEY not in message and OTHER not in message
    assert "api_key=[redacted]" in message  # the gateway's words are kept for the run's error, redacted


def test_a_key_echoed_in_the_answer_of_a_connection_test_is_redacted(client, demo, recorder, monkeypatch):
    """The tester's case: a server that answers 200 with the key in its text showed the
    key on the endpoint page."""
    server = recorder(answer="pong {auth}")
    bind_key(monkeypatch, "TEAMLLM_LLM_KEY_TEST", "lowercasesecretvalue", to=server.base_url)
    endpoint = ModelEndpoint.objects.create(
        name="echo-answer", model_number="80", base_url=server.base_url, model_name="m",
        api_key_env="TEAMLLM_LLM_KEY_TEST", timeout_seconds=5,
    )  # fmt: skip
    client.login(username="admin", password="demo-pass-2026")
    html = client.post(reverse("generation:endpoint_test", args=[endpoint.pk])).content.decode()
    assert server.seen[0]["authorization"] == "Bearer lowercasesecretvalue"
    assert "pong" in html and "lowercasesecretvalue" not in html and "[redacted]" in html

"""Issue 36, findings 1 and 2: a provider key goes only to the hosts the operator bound it to,
a keyless endpoint only to the hosts the operator allows, and "Test connection" is no window
onto the web process's network. Each exploit is performed against real local HTTP servers
that record what reaches them, and shown to do no harm."""

from __future__ import annotations

import time

import httpx2
import pytest
from django.urls import reverse

from core.llm.client import EgressNotAllowed, LLMError, chat_complete
from core.llm.egress import EgressRefused
from core.llm.transport import EgressTransport
from generation.models import RunStatus
from generation.services import endpoints as endpoint_services
from generation.services.batches import batch_create
from generation.services.endpoints import endpoint_test_connection
from generation.services.runs import run_step
from generation.tasks import run_advance_send
from judging.services.judges import judge_create
from judging.services.runs import judge_batch_launch, judge_task_run
from studies.models import AuditEvent, Condition, ModelEndpoint, Scenario, Study
from tests.egress import Closer, Recorder, bind_key, closed_port_url, spaced

KEY_ENV = "TEAMLLM_LLM_KEY_OPENAI"
KEY = "sk-proj-Q7vX2kLm9Np3Rt8Wz5Yb1Hc4Jd6Fg0"
MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.fixture
def servers():
    started: list = []

    def start(*args, **kwargs) -> Recorder:
        server = Recorder(*args, **kwargs).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def home_and_thief(servers, monkeypatch):
    """The provider the operator bound the key to, and the admin's own host (another address:
    127.0.0.2 is loopback too, but not the bound one)."""
    home = servers()
    thief = servers("127.0.0.2")
    bind_key(monkeypatch, KEY_ENV, KEY, to=home.base_url)
    return home, thief


@pytest.fixture
def admin(client, demo):
    client.login(username="admin", password="demo-pass-2026")
    return client


def endpoint_at(base_url: str, api_key_env: str = KEY_ENV, **fields) -> ModelEndpoint:
    """A row as it stands in the database (saved when the binding said otherwise, or an old row):
    the checks at call time do not rely on the checks at save."""
    values = {"model_number": "70", "model_name": "m", "timeout_seconds": 5.0, **fields}
    return ModelEndpoint.objects.update_or_create(
        name="hostile", defaults={"base_url": base_url, "api_key_env": api_key_env, **values}
    )[0]


def test_test_connection_does_not_send_a_bound_key_to_another_host(admin, home_and_thief):
    home, thief = home_and_thief
    # the admin's own host, and another port of the bound host
    for where in (thief.base_url, "http://127.0.0.1:9/v1"):
        endpoint = endpoint_at(where)
        html = admin.post(reverse("generation:endpoint_test", args=[endpoint.pk])).content.decode()
        assert f"The key {KEY_ENV} may be sent only to 127.0.0.1:{home.server_address[1]}" in html
        assert f"{KEY_ENV}_HOSTS" in html and "check-error" in html
    assert thief.seen == [] and home.seen == []
    events = AuditEvent.objects.filter(action="endpoint.test", target=f"studies.modelendpoint:{endpoint.pk}")
    assert [e.changes["outcome"] for e in events] == ["refused by settings"] * 2


def test_a_generation_run_does_not_send_a_bound_key_to_another_host(
    demo, home_and_thief, django_capture_on_commit_callbacks
):
    home, thief = home_and_thief
    endpoint = endpoint_at(thief.base_url)
    Study.objects.get(name="CGPST demo").endpoints.add(endpoint)  # the study's choice
    with django_capture_on_commit_callbacks(execute=False):
        run = batch_create(
            study=Study.objects.get(name="CGPST demo"),
            scenarios=[Scenario.objects.get(code="FS10")],
            endpoints=[endpoint],
            conditions=[Condition.objects.get(letter="B")],
            enqueue=run_advance_send,
        ).runs[0]
    started = time.monotonic()
    assert run_step(run_id=run.pk, seq=0).kind == "failed"
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and time.monotonic() - started < 5  # refused at once, no retry
    assert f"{KEY_ENV}_HOSTS" in run.error and "not to http://127.0.0.2" in run.error
    assert thief.seen == [] and home.seen == []


def test_the_launch_form_refuses_an_endpoint_whose_calls_would_be_refused(admin, home_and_thief):
    """The run would fail at its first call: the launch page says why before making it."""
    from generation.models import GenerationBatch

    _home, thief = home_and_thief
    endpoint = endpoint_at(thief.base_url)
    study = Study.objects.get(name="CGPST demo")
    study.endpoints.add(endpoint)  # in the study's choice, so that the page offers it
    reply = admin.post(
        reverse("generation:home"),
        {
            "study": study.pk,
            "scenarios": [Scenario.objects.get(code="FS10").pk],
            "endpoints": [endpoint.pk],
            "conditions": [Condition.objects.get(letter="B").pk],
        },
    )
    html = reply.content.decode()
    assert f"{endpoint.name}: The key {KEY_ENV} may be sent only to" in html.replace("&#x27;", "'")
    assert not GenerationBatch.objects.exists() and thief.seen == []


def test_a_judge_run_does_not_send_a_bound_key_to_another_host(demo, home_and_thief):
    home, thief = home_and_thief
    judge = judge_create(name="thief judge", endpoint=endpoint_at(thief.base_url), provider_family="stub")
    batch = judge_batch_launch(study=Study.objects.get(name="CGPST demo"), judge=judge)
    assert [judge_task_run(task_id=t.pk) for t in batch.tasks.all()] == ["failed"] * batch.tasks.count()
    assert all(f"{KEY_ENV}_HOSTS" in t.error for t in batch.tasks.all())
    assert thief.seen == [] and home.seen == []


def test_the_key_does_go_to_its_bound_host(db, home_and_thief):
    home, thief = home_and_thief
    result = chat_complete(endpoint=endpoint_at(home.base_url), messages=MESSAGES, params={})
    assert result.text == "Hello." and result.status == 200
    assert [h["authorization"] for h in home.seen] == [f"Bearer {KEY}"] and thief.seen == []


def test_a_key_with_no_binding_is_sent_nowhere(db, servers, monkeypatch):
    server = servers()
    monkeypatch.setenv("TEAMLLM_LLM_KEY_UNBOUND", KEY)
    monkeypatch.delenv("TEAMLLM_LLM_KEY_UNBOUND_HOSTS", raising=False)
    with pytest.raises(EgressNotAllowed) as refused:
        chat_complete(
            endpoint=endpoint_at(server.base_url, "TEAMLLM_LLM_KEY_UNBOUND"), messages=MESSAGES, params={}
        )
    assert not refused.value.retryable and refused.value.attempts == 0
    assert "TEAMLLM_LLM_KEY_UNBOUND is bound to no host" in str(refused.value)
    assert "TEAMLLM_LLM_KEY_UNBOUND_HOSTS" in str(refused.value)
    assert server.seen == []


def test_a_redirect_to_another_host_is_not_followed_with_the_key(db, servers, monkeypatch):
    thief = servers("127.0.0.2")
    home = servers(location=f"{thief.base_url}/chat/completions")
    bind_key(monkeypatch, KEY_ENV, KEY, to=home.base_url)
    with pytest.raises(LLMError) as failed:
        chat_complete(endpoint=endpoint_at(home.base_url), messages=MESSAGES, params={})
    assert not failed.value.retryable and failed.value.status == 307
    assert "redirected, not followed" in str(failed.value)
    assert len(home.seen) == 1 and thief.seen == []


def test_the_transport_refuses_a_redirect_even_where_redirects_are_followed(db, servers, monkeypatch):
    """The transport checks every request the HTTP client makes, a redirect's too: were redirects
    followed (another client, a changed default), the key would still not leave."""
    thief = servers("127.0.0.2")
    home = servers(location=f"{thief.base_url}/chat/completions")
    bind_key(monkeypatch, KEY_ENV, KEY, to=home.base_url)
    with (
        httpx2.Client(follow_redirects=True, transport=EgressTransport(KEY_ENV)) as client,
        pytest.raises(EgressRefused, match="not to http://127.0.0.2"),
    ):
        client.post(f"{home.base_url}/chat/completions", headers={"Authorization": f"Bearer {KEY}"}, json={})
    assert len(home.seen) == 1 and thief.seen == []


def test_loopback_is_refused_unless_the_operator_allows_it(db, servers, settings):
    server = servers("127.0.0.2")
    settings.LLM_KEYLESS_HOSTS = ["127.0.0.1"]
    with pytest.raises(EgressNotAllowed, match="LLM_KEYLESS_HOSTS"):
        chat_complete(endpoint=endpoint_at(server.base_url, ""), messages=MESSAGES, params={})

    # a name resolving to loopback is refused, though the name itself is allowed...
    port = server.server_address[1]
    settings.LLM_KEYLESS_HOSTS = [f"localhost:{port}"]
    by_name = server.base_url.replace("127.0.0.2", "localhost")
    with pytest.raises(EgressNotAllowed, match="localhost resolves to .*LLM_PRIVATE_NETWORKS"):
        chat_complete(endpoint=endpoint_at(by_name, ""), messages=MESSAGES, params={})
    assert server.seen == []

    # ...until the operator allows the address (written in the list) or its network
    settings.LLM_KEYLESS_HOSTS = [f"127.0.0.2:{port}"]
    assert chat_complete(endpoint=endpoint_at(server.base_url, ""), messages=MESSAGES, params={}).text
    settings.LLM_KEYLESS_HOSTS = [f"localhost:{port}"]
    settings.LLM_PRIVATE_NETWORKS = ["127.0.0.0/8", "::1/128"]
    local = servers()  # localhost is 127.0.0.1
    settings.LLM_KEYLESS_HOSTS = [f"localhost:{local.server_address[1]}"]
    by_name = local.base_url.replace("127.0.0.1", "localhost")
    assert chat_complete(endpoint=endpoint_at(by_name, ""), messages=MESSAGES, params={}).text
    assert len(server.seen) == 1 and len(local.seen) == 1


def test_saving_an_endpoint_is_refused_where_its_key_may_not_go(admin, home_and_thief, monkeypatch):
    home, thief = home_and_thief
    monkeypatch.delenv("TEAMLLM_LLM_KEY_UNBOUND_HOSTS", raising=False)
    fields = {"name": "stolen", "model_number": "71", "model_name": "m", "concurrency_limit": "1"}
    fields |= {"timeout_seconds": "10", "extra_params": "{}", "notes": ""}
    cases = [
        (
            thief.base_url,
            KEY_ENV,
            f"may be sent only to 127.0.0.1:{home.server_address[1]} ({KEY_ENV}_HOSTS; a host without a port means https",
        ),
        (home.base_url, "TEAMLLM_LLM_KEY_UNBOUND", "TEAMLLM_LLM_KEY_UNBOUND is bound to no host"),
        ("http://127.0.0.2:6379/v1", "", "not 127.0.0.2:6379"),  # no key: LLM_KEYLESS_HOSTS
        ("ftp://127.0.0.1/v1", "", "Only http:// and https:// URLs with a host are called"),
    ]
    for base_url, key_env, message in cases:
        page = admin.post(
            reverse("generation:endpoint_new"), {**fields, "base_url": base_url, "api_key_env": key_env}
        )
        assert page.status_code == 200 and message in page.content.decode()
    assert not ModelEndpoint.objects.filter(name="stolen").exists()
    assert not AuditEvent.objects.filter(action="endpoint.create").exists()

    existing = endpoint_at(home.base_url)
    edit = {
        **fields,
        "name": existing.name,
        "model_number": "70",
        "base_url": thief.base_url,
        "api_key_env": KEY_ENV,
    }
    page = admin.post(reverse("generation:endpoint", args=[existing.pk]), edit)
    assert f"not to http://127.0.0.2:{thief.server_address[1]}" in page.content.decode()
    existing.refresh_from_db()
    assert existing.base_url == home.base_url and thief.seen == []


@pytest.mark.parametrize(
    "extra, refused",
    [
        ('{"extra_headers": {"X-Api-Key": "x"}}', "extra_headers"),
        ('{"timeout": 45}', "timeout"),
        ('{"base_url": "http://127.0.0.2/v1", "api_key": "k"}', "api_key, base_url"),
        (
            '{"extra_query": {"a": 1}, "default_headers": {}, "http_client": 1}',
            "default_headers, extra_query, http_client",
        ),
        ('{"organization": "o", "headers": {}}', "headers, organization"),
    ],
)
def test_extra_parameters_cannot_set_headers_urls_timeouts_or_auth(admin, extra, refused):
    fields = {"name": "opts", "model_number": "72", "base_url": "http://127.0.0.1:9/v1", "model_name": "m"}
    fields |= {"api_key_env": "", "concurrency_limit": "1", "timeout_seconds": "10", "notes": ""}
    page = admin.post(reverse("generation:endpoint_new"), {**fields, "extra_params": extra}).content.decode()
    assert f"Not allowed in the extra parameters: {refused}." in page
    assert not ModelEndpoint.objects.filter(name="opts").exists()
    ok = admin.post(
        reverse("generation:endpoint_new"), {**fields, "extra_params": '{"max_tokens": 9, "seed": 1}'}
    )
    assert ok.status_code == 302  # body parameters stay welcome


def test_request_options_in_a_stored_row_are_dropped_at_call(db, servers, monkeypatch):
    slow = servers(delay=3.0)
    endpoint = endpoint_at(
        slow.base_url,
        "",
        timeout_seconds=1.0,
        extra_params={
            "extra_headers": {"X-Injected": "yes"},
            "extra_query": {"q": "1"},
            "timeout": 45,
            "seed": 3,
        },
    )
    started = time.monotonic()
    with pytest.raises(LLMError) as failed:
        chat_complete(endpoint=endpoint, messages=MESSAGES, params={}, max_attempts=1)
    assert time.monotonic() - started < 2.5  # the endpoint's 1 s, not the 45 s of the extra parameters
    assert failed.value.kind == "network"
    assert "x-injected" not in slow.seen[0] and "q=1" not in slow.seen[0]["path"]


def test_test_connection_keeps_its_time_cap_whatever_the_extra_parameters_say(admin, servers, monkeypatch):
    monkeypatch.setattr(endpoint_services, "TEST_TIMEOUT_SECONDS", 1.0)
    slow = servers(delay=4.0)
    endpoint = endpoint_at(slow.base_url, "", timeout_seconds=120.0, extra_params={"timeout": 45})
    started = time.monotonic()
    html = admin.post(reverse("generation:endpoint_test", args=[endpoint.pk])).content.decode()
    assert time.monotonic() - started < 3.5
    assert "did not answer within 1 s" in html and len(slow.seen) == 1


def test_test_connection_asks_for_one_short_completion_whatever_the_extra_parameters_say(admin, servers):
    """Hostile pass 21 (L1): a body merged last (extra_body) lifted the probe's token cap, and "n"
    asked for 64 completions."""
    import json

    server = servers()
    endpoint = endpoint_at(
        server.base_url, "", extra_params={"extra_body": {"max_tokens": 999999}, "n": 64, "seed": 3}
    )
    admin.post(reverse("generation:endpoint_test", args=[endpoint.pk]))
    sent = json.loads(server.seen[0]["body"])
    assert sent["max_tokens"] == endpoint_services.TEST_MAX_TOKENS and "n" not in sent
    assert sent["seed"] == 3  # the endpoint's other parameters are sent as configured


def test_test_connection_ends_a_dripping_answer_at_its_time_cap(admin, servers, monkeypatch):
    """Found by the egress work: the cap counted each read, so a server sending its answer a
    byte every 0.2 s (about 40 s for this body) held the page as long as it liked."""
    monkeypatch.setattr(endpoint_services, "TEST_TIMEOUT_SECONDS", 1.0)
    dripping = servers(drip=0.2)
    endpoint = endpoint_at(dripping.base_url, "", timeout_seconds=120.0)
    started = time.monotonic()
    html = admin.post(reverse("generation:endpoint_test", args=[endpoint.pk])).content.decode()
    assert time.monotonic() - started < 5  # the 1 s cap (at most twice it), not the body's 40 s
    assert "did not answer within 1 s" in html and len(dripping.seen) == 1


def test_a_workers_call_keeps_per_read_timeouts_for_a_long_streamed_answer(db, servers):
    """Workers are not held to the whole-call deadline: an answer that keeps coming (a long
    streamed generation) may take longer in all than the endpoint's timeout."""
    dripping = servers(drip=0.01)  # about 2 s for the whole body, every read far under 1 s
    endpoint = endpoint_at(dripping.base_url, "", timeout_seconds=1.0)
    answer = chat_complete(endpoint=endpoint, messages=[{"role": "user", "content": "hi"}], params={})
    assert answer.text == "Hello."


def test_test_connection_never_shows_the_body_of_an_error_answer(admin, servers):
    internal = "INTERNAL: redis.conf requirepass hunter2hunter2"
    for status in (500, 404, 401):
        server = servers(status=status, body=internal)
        endpoint = endpoint_at(server.base_url, "")
        html = admin.post(reverse("generation:endpoint_test", args=[endpoint.pk])).content.decode()
        assert f"The server answered HTTP {status}." in html
        assert "INTERNAL" not in html and "requirepass" not in html and "hunter2" not in html


def test_test_connection_does_not_tell_a_refused_port_from_a_dropped_connection(admin):
    closer = Closer()
    try:
        errors = []
        for url in (closed_port_url(), closer.base_url):
            endpoint = endpoint_at(url, "")
            check = endpoint_test_connection(endpoint=endpoint, actor=None)
            assert not check.ok and check.status is None
            errors.append(check.error)
        assert closer.accepted >= 1  # the second one was reached, and closed on us
        assert errors[0] == errors[1]
        assert errors[0].startswith("No answer: the server could not be reached, closed the connection")
    finally:
        closer.stop()


def test_an_echo_of_the_key_spelled_out_is_redacted(admin, servers, monkeypatch):
    server = servers(answer="Your key is {spaced} and {auth}")
    bind_key(monkeypatch, KEY_ENV, KEY, to=server.base_url)
    endpoint = endpoint_at(server.base_url)
    html = admin.post(reverse("generation:endpoint_test", args=[endpoint.pk])).content.decode()
    assert server.seen[0]["authorization"] == f"Bearer {KEY}"
    assert "Your key is" in html and "[redacted]" in html
    assert KEY not in html and spaced(KEY) not in html and spaced(KEY[8:20]) not in html
    assert "(HTTP 200)" in html


def test_each_test_is_audited_without_the_answer(admin, servers):
    server = servers(answer="a private answer")
    endpoint = endpoint_at(server.base_url, "")
    admin.post(reverse("generation:endpoint_test", args=[endpoint.pk]))
    admin.post(reverse("generation:endpoint_test", args=[endpoint.pk]), HTTP_HX_REQUEST="true")
    events = AuditEvent.objects.filter(action="endpoint.test").order_by("pk")
    assert [e.actor.username for e in events] == ["admin", "admin"]
    assert all(e.target == f"studies.modelendpoint:{endpoint.pk}" for e in events)
    changes = events[0].changes
    assert (
        changes["outcome"] == "answered"
        and changes["status"] == 200
        and changes["base_url"] == server.base_url
    )
    assert changes["latency_ms"] >= 0 and "private" not in str(changes)


def test_the_endpoint_pages_say_why_a_key_is_not_sent(admin, servers, monkeypatch):
    server = servers()
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.delenv(f"{KEY_ENV}_HOSTS", raising=False)
    endpoint = endpoint_at(server.base_url)
    page = admin.get(reverse("generation:endpoint", args=[endpoint.pk])).content.decode()
    assert "Nothing is sent to this endpoint." in page
    assert f"The key {KEY_ENV} is bound to no host" in page and f"{KEY_ENV}_HOSTS=api.openai.com" in page
    assert f"The operator's setting {KEY_ENV}_HOSTS names no host" in page
    listing = admin.get(reverse("generation:endpoints")).content.decode()
    assert "calls refused" in listing and "Nothing is sent to endpoint hostile." in listing

    monkeypatch.setenv(f"{KEY_ENV}_HOSTS", f"api.openai.com, {server.base_url.split('/')[2]}")
    page = admin.get(reverse("generation:endpoint", args=[endpoint.pk])).content.decode()
    assert "Nothing is sent" not in page
    assert f"may go only to api.openai.com, {server.base_url.split('/')[2]}" in page

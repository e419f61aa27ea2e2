"""Issue 36, pass 11 finding 5: a name is looked up once and the call connects to the address
that was checked. A resolver that answers an allowed address first and an internal one next
(DNS rebinding) must not take the call, or the key, to the internal server.

The resolver is the edge replaced here (``socket.getaddrinfo`` for the name ``provider.test``
only); the servers, the HTTP client and TLS are real."""

from __future__ import annotations

import socket
import ssl
import subprocess
from pathlib import Path

import httpx2
import pytest

from core.llm.client import EgressNotAllowed, LLMError, chat_complete
from core.llm.transport import EgressTransport
from studies.models import ModelEndpoint
from tests.egress import Recorder, bind_key

NAME = "provider.test"
KEY_ENV = "TEAMLLM_LLM_KEY_REBIND"
KEY = "sk-proj-R3b1nd9Np3Rt8Wz5Yb1Hc4Jd6Fg0"
MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.fixture
def allowed_and_internal(settings):
    """The provider (127.0.0.2, a network the operator allows) and an internal server on the
    same port of another address (127.0.0.3, allowed nowhere)."""
    allowed = Recorder("127.0.0.2").start()
    internal = Recorder("127.0.0.3", port=allowed.server_address[1]).start()
    settings.LLM_PRIVATE_NETWORKS = ["127.0.0.2/32"]
    yield allowed, internal
    allowed.stop()
    internal.stop()


@pytest.fixture
def resolver(monkeypatch):
    """``answers``: the addresses ``provider.test`` gives at each lookup, the last one from then
    on (empty: it gives none); every other name resolves as usual."""
    real = socket.getaddrinfo
    answers: list[str] = []
    lookups: list[str] = []

    def getaddrinfo(host, port, *args, **kwargs):
        if host != NAME:
            return real(host, port, *args, **kwargs)
        if not answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        address = answers.pop(0) if len(answers) > 1 else answers[0]
        lookups.append(address)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return answers, lookups


def endpoint_at(base_url: str, api_key_env: str = "") -> ModelEndpoint:
    return ModelEndpoint.objects.update_or_create(
        name="rebinding",
        defaults={
            "base_url": base_url,
            "api_key_env": api_key_env,
            "model_number": "71",
            "model_name": "m",
            "timeout_seconds": 5.0,
            "retry_budget_seconds": 1,
        },
    )[0]


def test_a_name_that_rebinds_after_the_check_still_reaches_the_checked_address(
    db, allowed_and_internal, resolver, settings
):
    allowed, internal = allowed_and_internal
    answers, lookups = resolver
    answers[:] = ["127.0.0.2", "127.0.0.3"]
    port = allowed.server_address[1]
    settings.LLM_KEYLESS_HOSTS = [f"{NAME}:{port}"]
    reply = chat_complete(endpoint=endpoint_at(f"http://{NAME}:{port}/v1"), messages=MESSAGES, params={})
    assert reply.text == "Hello."
    assert lookups == ["127.0.0.2"]  # looked up once
    assert len(allowed.seen) == 1 and allowed.seen[0]["host"] == f"{NAME}:{port}"
    assert internal.seen == []


def test_a_bound_key_does_not_follow_a_rebinding_name(db, allowed_and_internal, resolver, monkeypatch):
    allowed, internal = allowed_and_internal
    answers, _lookups = resolver
    port = allowed.server_address[1]
    bind_key(monkeypatch, KEY_ENV, KEY, to=f"http://{NAME}:{port}")
    endpoint = endpoint_at(f"http://{NAME}:{port}/v1", KEY_ENV)
    for _call in range(3):  # a new lookup at each call, each pinned
        answers[:] = ["127.0.0.2", "127.0.0.3"]
        assert chat_complete(endpoint=endpoint, messages=MESSAGES, params={}).text == "Hello."
    assert [seen["authorization"] for seen in allowed.seen] == [f"Bearer {KEY}"] * 3
    assert internal.seen == []


def test_a_name_whose_first_answer_is_internal_is_refused(db, allowed_and_internal, resolver, settings):
    allowed, internal = allowed_and_internal
    answers, _lookups = resolver
    answers[:] = ["127.0.0.3"]
    port = allowed.server_address[1]
    settings.LLM_KEYLESS_HOSTS = [f"{NAME}:{port}"]
    with pytest.raises(EgressNotAllowed, match=f"{NAME} resolves to 127.0.0.3.*LLM_PRIVATE_NETWORKS"):
        chat_complete(endpoint=endpoint_at(f"http://{NAME}:{port}/v1"), messages=MESSAGES, params={})
    assert allowed.seen == [] and internal.seen == []


def test_a_name_with_no_address_is_a_connection_error_that_may_be_retried(db, resolver, settings):
    settings.LLM_KEYLESS_HOSTS = [f"{NAME}:8000"]
    with pytest.raises(LLMError) as failed:
        chat_complete(
            endpoint=endpoint_at(f"http://{NAME}:8000/v1"), messages=MESSAGES, params={}, max_attempts=1
        )
    assert failed.value.retryable and not isinstance(failed.value, EgressNotAllowed)


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for ``provider.test`` only."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            f"/CN={NAME}",
            "-addext",
            f"subjectAltName=DNS:{NAME}",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def test_tls_checks_the_name_while_connecting_to_the_checked_address(certificate, resolver, settings):
    cert, key = certificate
    server = Recorder("127.0.0.2")
    served = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    served.load_cert_chain(cert, key)
    server.socket = served.wrap_socket(server.socket, server_side=True)
    server.start()
    answers, _lookups = resolver
    answers[:] = ["127.0.0.2"]
    port = server.server_address[1]
    settings.LLM_KEYLESS_HOSTS = [f"{NAME}:{port}"]
    settings.LLM_PRIVATE_NETWORKS = ["127.0.0.2/32"]
    trusted = ssl.create_default_context(cafile=str(cert))
    try:
        with EgressTransport("", verify=trusted) as transport:
            request = httpx2.Request("POST", f"https://{NAME}:{port}/v1/chat/completions", json={})
            assert transport.handle_request(request).status_code == 200  # the name's certificate holds
        assert server.seen[0]["host"] == f"{NAME}:{port}"
        # the certificate is checked: it does not hold for the address itself
        settings.LLM_KEYLESS_HOSTS = [f"127.0.0.2:{port}"]
        with EgressTransport("", verify=trusted) as transport, pytest.raises(httpx2.ConnectError):
            transport.handle_request(httpx2.Request("POST", f"https://127.0.0.2:{port}/v1", json={}))
        assert len(server.seen) == 1
    finally:
        server.stop()

"""core.llm.egress's rules, and the client's guards beside them: which entries bind a key to which
hosts, what is refused and with which setting named, request options kept out of the body, and a
key redacted however it is spelled out (issue 36)."""

from __future__ import annotations

import base64
import ipaddress
import re

import httpx2
import pytest

from core.llm.egress import EgressRefused, egress_check, egress_problem, host_rule
from core.llm.keys import api_key_env_allowed
from core.llm.redaction import redact_credentials
from core.llm.request_options import extra_params_refused, request_options
from core.llm.transport import EgressTransport
from tests.egress import Recorder

KEY = "sk-proj-Q7vX2kLm9Np3Rt8Wz5Yb1Hc4Jd6Fg0"


@pytest.mark.parametrize(
    "entry, name, address, port",
    [
        ("api.openai.com", "api.openai.com", None, None),
        (" API.OpenAI.com. ", "api.openai.com", None, None),
        ("litellm:4000", "litellm", None, 4000),
        ("*.openai.azure.com", "*.openai.azure.com", None, None),
        ("127.0.0.1:8765", "", "127.0.0.1", 8765),
        ("[::1]:8765", "", "::1", 8765),
        ("::1", "", "::1", None),
        ("https://gw.example.org:8443/v1", "gw.example.org", None, 8443),
    ],
)
def test_host_entries(entry, name, address, port):
    rule = host_rule(entry)
    assert rule.name == name and rule.port == port
    assert rule.address == (ipaddress.ip_address(address) if address else None)


@pytest.mark.parametrize("entry", ["", "a b", "host:port", "host:0", "host:70000", "[::1]x", "*."])
def test_entries_that_name_no_host_are_refused(entry):
    with pytest.raises(ValueError):
        host_rule(entry)


@pytest.mark.parametrize(
    "url, allowed",
    [
        ("https://api.openai.com/v1", True),
        ("https://API.openai.com./v1", True),
        # a key's entry without a port: https on 443 only (issue 36, hostile pass N4)
        ("http://api.openai.com/v1", False),
        ("https://api.openai.com:9911/v1", False),
        ("http://api.openai.com:443/v1", False),
        ("https://api.openai.com:443/v1", True),
        ("https://api.openai.com.evil.org/v1", False),
        ("https://evil.org/api.openai.com/v1", False),
        ("https://api.openai.com@evil.org/v1", False),
        ("https://x.openai.azure.com/openai", True),
        ("https://openai.azure.com/openai", False),  # subdomains only
        ("https://x.openai.azure.com.evil.org/", False),
        ("http://127.0.0.1:8765/v1", True),
        ("http://127.0.0.1:6379/v1", False),  # Redis's port: not the stub's
        ("http://[::ffff:127.0.0.1]:8765/v1", True),  # the same address
        ("http://127.1:8765/v1", False),  # a name, not the address written
        ("http://2130706433:8765/v1", False),
        ("http://localhost:8765/v1", False),
        ("ftp://api.openai.com/v1", False),
        ("file:///etc/passwd", False),
        ("https://api.openai.com:99999/v1", False),
    ],
)
def test_a_url_is_allowed_only_by_an_entry_that_names_it(url, allowed, monkeypatch):
    monkeypatch.setenv("TEAMLLM_LLM_KEY_X_HOSTS", "api.openai.com,*.openai.azure.com,127.0.0.1:8765")
    assert (egress_problem(url, api_key_env="TEAMLLM_LLM_KEY_X", resolve=False) == "") is allowed


@pytest.mark.parametrize(
    "binding, url, allowed",
    [
        ("litellm:4000", "http://litellm:4000/v1", True),  # the port written: any scheme
        ("litellm:4000", "https://litellm:4000/v1", True),
        ("http://gw.lab", "http://gw.lab/v1", True),  # the scheme written: its port
        ("http://gw.lab", "http://gw.lab:8080/v1", False),
        ("http://gw.lab", "https://gw.lab/v1", False),
        ("https://gw.lab:8443", "https://gw.lab:8443/v1", True),
        ("https://gw.lab:8443", "http://gw.lab:8443/v1", False),
        ("127.0.0.1", "https://127.0.0.1/v1", True),
        ("127.0.0.1", "http://127.0.0.1:8765/v1", False),
    ],
)
def test_a_keys_binding_says_the_port_and_scheme_it_travels_on(binding, url, allowed, monkeypatch):
    monkeypatch.setenv("TEAMLLM_LLM_KEY_X_HOSTS", binding)
    assert (egress_problem(url, api_key_env="TEAMLLM_LLM_KEY_X", resolve=False) == "") is allowed


def test_keyless_hosts_without_a_port_allow_any_port_and_scheme(settings):
    settings.LLM_KEYLESS_HOSTS = ["10.0.0.7"]
    assert egress_problem("http://10.0.0.7:8000/v1", api_key_env="", resolve=False) == ""
    assert egress_problem("https://10.0.0.7/v1", api_key_env="", resolve=False) == ""


def test_each_refusal_names_the_setting_to_change(monkeypatch, settings):
    monkeypatch.delenv("TEAMLLM_LLM_KEY_X_HOSTS", raising=False)
    problem = egress_problem("https://api.openai.com/v1", api_key_env="TEAMLLM_LLM_KEY_X")
    assert "TEAMLLM_LLM_KEY_X is bound to no host" in problem and "TEAMLLM_LLM_KEY_X_HOSTS=" in problem
    monkeypatch.setenv("TEAMLLM_LLM_KEY_X_HOSTS", "api.openai.com")
    problem = egress_problem("https://evil.org/v1", api_key_env="TEAMLLM_LLM_KEY_X")
    assert (
        "may be sent only to api.openai.com (TEAMLLM_LLM_KEY_X_HOSTS; a host without a port means https"
        in problem
    )
    assert "not to https://evil.org:443" in problem
    settings.LLM_KEYLESS_HOSTS = []
    assert "in LLM_KEYLESS_HOSTS, and it names none" in egress_problem("http://127.0.0.1/v1", api_key_env="")
    settings.LLM_KEYLESS_HOSTS = ["127.0.0.1:8765"]
    problem = egress_problem("http://127.0.0.1:5432/v1", api_key_env="")
    assert "only 127.0.0.1:8765 (LLM_KEYLESS_HOSTS), not 127.0.0.1:5432" in problem
    monkeypatch.setenv("TEAMLLM_LLM_KEY_X_HOSTS", "api.openai.com, not a host")
    assert "TEAMLLM_LLM_KEY_X_HOSTS has an entry that is not a host: not a host" in egress_problem(
        "https://api.openai.com/v1", api_key_env="TEAMLLM_LLM_KEY_X"
    )
    # a key the prefix does not allow is sent nowhere, whatever its binding says
    monkeypatch.setenv("SECRET_KEY_HOSTS", "api.openai.com")
    assert egress_problem("https://api.openai.com/v1", api_key_env="SECRET_KEY")


def test_a_name_that_resolves_to_a_private_address_needs_the_operators_network(settings):
    settings.LLM_KEYLESS_HOSTS = ["localhost:8765", "127.0.0.1:8765"]
    settings.LLM_PRIVATE_NETWORKS = []
    with pytest.raises(EgressRefused, match="localhost resolves to .* LLM_PRIVATE_NETWORKS"):
        egress_check("http://localhost:8765/v1", api_key_env="")
    egress_check("http://127.0.0.1:8765/v1", api_key_env="")  # the address written needs none
    egress_check("http://localhost:8765/v1", api_key_env="", resolve=False)  # pages: the settings only
    settings.LLM_PRIVATE_NETWORKS = ["127.0.0.0/8", "::1/128"]
    egress_check("http://localhost:8765/v1", api_key_env="")
    settings.LLM_PRIVATE_NETWORKS = ["10.0.0.0/33"]
    with pytest.raises(EgressRefused, match="LLM_PRIVATE_NETWORKS has an entry that is not a network"):
        egress_check("http://localhost:8765/v1", api_key_env="")


def test_a_binding_is_not_a_key():
    assert api_key_env_allowed("TEAMLLM_LLM_KEY_OPENAI")
    assert not api_key_env_allowed("TEAMLLM_LLM_KEY_OPENAI_HOSTS")


def test_request_options_are_read_from_the_sdk_and_body_parameters_are_not_among_them():
    options = request_options()
    for name in ("extra_headers", "extra_query", "timeout", "base_url", "api_key", "organization"):
        assert name in options
    for name in ("default_headers", "default_query", "http_client", "max_retries", "headers", "proxy"):
        assert name in options
    for name in ("max_tokens", "temperature", "top_p", "response_format", "stream", "seed", "extra_body"):
        assert name not in options
    assert extra_params_refused({"Timeout": 9, "max_tokens": 5, "EXTRA_HEADERS": {}}) == [
        "EXTRA_HEADERS",
        "Timeout",
    ]


@pytest.mark.parametrize(
    "echo",
    [
        " ".join(KEY),
        "-".join(KEY),
        ". ".join(KEY),
        "\n".join(KEY),
        "\u200b".join(KEY),  # zero-width spaces
        KEY.upper(),
        "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in KEY),  # full-width
        " ".join(KEY.replace("-", "")),
    ],
)
def test_the_key_spelled_out_is_redacted(echo):
    text = f"Your key is {echo}, thanks."
    redacted = redact_credentials(text, [KEY])
    assert redacted == "Your key is [redacted], thanks."


@pytest.mark.parametrize(
    "echo",
    [
        KEY[::-1],  # reversed
        KEY.encode().hex(),
        KEY.encode().hex().upper(),
        base64.b64encode(KEY.encode()).decode(),
        KEY[-16:],  # its end (issue 36, hostile pass N5)
        "key" + KEY[-12:],
        KEY[8:20],
        # hostile pass 3
        base64.b32encode(KEY.encode()).decode(),
        "".join(f"&#{ord(c)};" for c in KEY),  # HTML character references
        KEY.encode().hex()[::-1],
        KEY[::2],
        KEY[1::2],
        KEY[-8:],
        KEY[:18].replace("o", "\u043e").replace("p", "\u0440"),  # Cyrillic look-alikes
        # hostile pass 4
        KEY[::3],
        KEY[2::3],
        "".join(f"\\u{ord(c):04x}" for c in KEY),  # JSON escapes
        KEY.encode("utf-16-be").hex(),
        base64.b85encode(KEY.encode()).decode(),
        " ".join(str(b) for b in KEY.encode()),
        __import__("codecs").encode(KEY, "rot13"),
    ],
)
def test_the_key_reversed_encoded_or_in_part_is_redacted(echo):
    redacted = redact_credentials(f"Your key is {echo} .", [KEY])
    assert redacted.startswith("Your key is ") and "[redacted]" in redacted
    left = redacted.removeprefix("Your key is ").replace("[redacted]", " ").removeprefix("key")
    assert not re.search(r"[A-Za-z0-9]{3,}", left), left  # nothing of the key is left but punctuation


def test_spelling_out_does_not_redact_ordinary_text():
    text = "The model answered: s k i p the first step."
    assert redact_credentials(text, ["not-a-key-at-all-123"]) == text
    assert redact_credentials("short 1 2 3 4", ["1234"]) == "short 1 2 3 4"  # too short to spell out


@pytest.mark.parametrize(
    "url, allowed",
    [
        ("http://127.0.0.1:{port}/v1/chat/completions", True),
        ("http://[::1]:{port}/v1/chat/completions", False),
        ("http://127.0.0.1:{port}\\@evil.org/v1/chat/completions", False),  # the host is evil.org
        ("http://evil.org\\@127.0.0.1:{port}/v1/chat/completions", True),  # user info, then the stub
        ("http://127.0.0.1/v1/chat/completions", False),  # port 80
    ],
)
def test_the_transport_checks_the_host_the_client_connects_to(url, allowed, settings):
    server = Recorder().start()
    try:
        port = server.server_address[1]
        settings.LLM_KEYLESS_HOSTS = [f"127.0.0.1:{port}"]
        request = httpx2.Request("POST", url.format(port=port), json={})
        with EgressTransport("") as transport:
            if allowed:
                assert transport.handle_request(request).status_code == 200
            else:
                with pytest.raises(EgressRefused):
                    transport.handle_request(request)
        assert len(server.seen) == int(allowed)
    finally:
        server.stop()

# ruff: noqa: S310 - urlopen on the local stub's http:// URL
"""``python -m devtools.llm_stub`` serves the OpenAI API over HTTP with fault injection."""

import json
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from tests.workers import ROOT, child_env

BODY = {
    "model": "stub",
    "messages": [{"role": "user", "content": "The information for Step 4 is as follows"}],
}


@pytest.fixture
def start_stub():
    procs = []

    def start(*args):
        # started with SIGINT ignored, as a shell starts a background job: Ctrl-C must still stop it
        proc = subprocess.Popen(
            [sys.executable, "-m", "devtools.llm_stub", "--port", "0", *args],
            cwd=ROOT, env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),  # noqa: PLW1509
        )  # fmt: skip
        procs.append(proc)
        line = proc.stdout.readline().decode()
        base = re.search(r"(http://\S+/v1)", line)
        assert base, line
        return base[1]

    yield start
    for proc in procs:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=10)


def post(url, body):
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json", "Authorization": "Bearer x"}
    )
    return urllib.request.urlopen(request, timeout=10)


def test_the_stub_command_serves_models_and_completions(start_stub):
    base = start_stub("--latency-ms", "5")
    models = json.load(urllib.request.urlopen(f"{base}/models", timeout=10))
    assert models["data"][0]["id"] == "stub-cgpst"
    answer = json.load(post(f"{base}/chat/completions", BODY))
    text = answer["choices"][0]["message"]["content"]
    assert text.startswith("[Synthetic reply · Step 4")
    assert answer["usage"]["completion_tokens"] > 0


def test_the_stub_command_injects_rate_limits(start_stub):
    base = start_stub("--fail-rate", "1", "--faults", "429", "--retry-after", "2")
    with pytest.raises(urllib.error.HTTPError) as info:
        post(f"{base}/chat/completions", BODY)
    assert info.value.code == 429 and info.value.headers["Retry-After"] == "2"
    stats = json.load(urllib.request.urlopen(base.replace("/v1", "/_stub/stats"), timeout=10))
    assert stats["stats"]["faults"] == {"429": 1}


def test_bad_fault_kinds_are_refused(start_stub):
    proc = subprocess.run(
        [sys.executable, "-m", "devtools.llm_stub", "--port", "0", "--faults", "meteor"],
        cwd=ROOT, env=child_env(), capture_output=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode != 0 and b"unknown fault kind" in proc.stderr

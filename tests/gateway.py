"""LiteLLM's proxy (``litellm[proxy]``), a real OpenAI-compatible gateway, started in front of
the bundled stub for the tests that go through a gateway (issue 24).

It is installed by ``scripts/bootstrap.sh dev`` into its own environment
(``var/tools/litellm``, pinned by ``requirements-gateway.lock``): its pins (gunicorn 23,
rich 13) conflict with the product's ``requirements.lock``, so it cannot share ``.venv``.
``LITELLM_BIN`` names another ``litellm`` executable.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MASTER_KEY = "sk-gateway-master-5f1e2d3c4b5a6978"
# Models the gateway serves, all in front of the stub: plain, with an rpm limit, and mock errors.
RPM_LIMIT = 2


def litellm_bin() -> str | None:
    for candidate in (os.environ.get("LITELLM_BIN"), str(ROOT / "var/tools/litellm/bin/litellm")):
        if candidate and Path(candidate).exists():
            return candidate
    return shutil.which("litellm")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def gateway_config(stub_base_url: str, rpm_models: dict[str, int] | None = None) -> dict:
    upstream = {"api_base": stub_base_url, "api_key": "not-needed"}

    def model(name: str, **params: object) -> dict:
        return {"model_name": name, "litellm_params": {"model": "openai/stub-cgpst", **upstream, **params}}

    return {
        "model_list": [
            model("stub-cgpst"),
            model("stub-rpm", rpm=RPM_LIMIT),
            model("mock-429", mock_response="litellm.RateLimitError"),
            model("mock-500", mock_response="litellm.InternalServerError"),
            *(model(name, rpm=rpm) for name, rpm in (rpm_models or {}).items()),
        ],
        # rpm limits are enforced before the call, with LiteLLM's own 429 and its hint
        "router_settings": {"enable_pre_call_checks": True, "routing_strategy": "usage-based-routing-v2"},
        "general_settings": {"master_key": MASTER_KEY},
        "litellm_settings": {"num_retries": 0, "request_timeout": 30},
    }


@dataclass
class Gateway:
    process: subprocess.Popen
    port: int
    log: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)


def gateway_start(
    *, stub_base_url: str, workdir: Path, wait: float = 240.0, rpm_models: dict[str, int] | None = None
) -> Gateway:
    binary = litellm_bin()
    if binary is None:
        raise RuntimeError(
            "LiteLLM's proxy is not installed: `scripts/bootstrap.sh dev` puts it into var/tools/litellm "
            "(or set LITELLM_BIN)"
        )
    workdir.mkdir(parents=True, exist_ok=True)
    config = workdir / "litellm.json"  # YAML is a superset of JSON: the proxy reads it
    config.write_text(json.dumps(gateway_config(stub_base_url, rpm_models)))
    port = _free_port()
    log = workdir / "litellm.log"
    # A clean environment: the suite's DATABASE_URL or REDIS_URL would make the proxy use them.
    env = {
        **{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")},
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # no download at start (CI has no network)
        "LITELLM_LOG": "ERROR",
        "NO_PROXY": "127.0.0.1,localhost",
    }
    handle = open(log, "wb")  # noqa: SIM115 - the process writes to it until it stops
    process = subprocess.Popen(
        [binary, "--config", str(config), "--host", "127.0.0.1", "--port", str(port)],
        stdout=handle,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=workdir,
    )
    gateway = Gateway(process=process, port=port, log=log)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"LiteLLM's proxy exited ({process.returncode}): {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/liveliness", timeout=2) as reply:
                if reply.status == 200:
                    return gateway
        except OSError:
            pass
        time.sleep(0.5)
    gateway.stop()
    raise RuntimeError(f"LiteLLM's proxy did not answer within {wait:.0f} s: {log.read_text()[-2000:]}")

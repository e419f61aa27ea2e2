"""Benchmark: a batch paced at a gateway's rpm, through LiteLLM's proxy (issue 37, finding 5).

LiteLLM's proxy counts requests per calendar minute and refuses (429, "retry after 60 s") the
request that would reach its rpm limit. An endpoint paced evenly at that rpm met such 429s, and
each cost a minute. This sends ``--calls`` calls one after another through the proxy (the
bundled stub behind it, answering at once) to a model limited to ``--rpm``, from an endpoint
paced at the same rpm, twice: as the product paces (spacing plus the window the proxy reports)
and with spacing alone (``pacing.window_observe`` switched off). It reports the wall time, the
429s met and the ratio to the ideal time at the gateway's rpm, ``(calls - 1) x 60 / rpm``.

Run: ``.venv/bin/python bench/gateway_pacing.py [--calls 40] [--rpm 20]`` (needs LiteLLM's proxy:
``scripts/bootstrap.sh dev``). Takes about two minutes per mode.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teamllm_web.settings.test")
os.environ["REDIS_URL"] = ""  # the pacing schedule in a file: this process only

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402

from core.llm import pacing  # noqa: E402
from core.llm.client import chat_complete  # noqa: E402
from devtools.llm_stub import stub_serve  # noqa: E402
from studies.models import ModelEndpoint  # noqa: E402
from tests.gateway import MASTER_KEY, gateway_start  # noqa: E402

MESSAGES = [{"role": "user", "content": "The information for Step 1 is as follows: ..."}]


def batch(base_url: str, model: str, calls: int, rpm: int) -> tuple[float, int]:
    """Seconds for ``calls`` calls and the 429s they met."""
    endpoint = ModelEndpoint(
        name=f"paced-{uuid.uuid4().hex[:6]}",
        model_number="99",
        base_url=base_url,
        model_name=model,
        api_key_env="TEAMLLM_LLM_KEY_BENCH",
        requests_per_minute=rpm,
        retry_budget_seconds=600,
        timeout_seconds=30,
    )
    started, limited = time.monotonic(), 0
    for _ in range(calls):
        limited += chat_complete(endpoint=endpoint, messages=MESSAGES, params={}).rate_limited
    return time.monotonic() - started, limited


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--rpm", type=int, default=20)
    args = parser.parse_args()
    settings.VAR_DIR = Path(tempfile.mkdtemp(prefix="bench-pacing-"))
    pacing.reset_for_tests()
    stub = stub_serve("127.0.0.1", 0).start_in_thread()
    gateway = gateway_start(
        stub_base_url=stub.base_url,
        workdir=Path(tempfile.mkdtemp(prefix="bench-litellm-")),
        rpm_models={"paced-a": args.rpm, "paced-b": args.rpm},
    )
    os.environ["TEAMLLM_LLM_KEY_BENCH"] = MASTER_KEY
    os.environ["TEAMLLM_LLM_KEY_BENCH_HOSTS"] = gateway.base_url.split("/")[2]
    ideal = (args.calls - 1) * 60 / args.rpm
    try:
        observe = pacing.window_observe
        rows = []
        for mode, model in (("spacing and the proxy's window", "paced-a"), ("spacing alone", "paced-b")):
            pacing.window_observe = observe if mode.startswith("spacing and") else (lambda *a, **k: 0.0)
            seconds, limited = batch(gateway.base_url, model, args.calls, args.rpm)
            rows.append((mode, seconds, limited))
        pacing.window_observe = observe
    finally:
        gateway.stop()
        stub.stop()
    print(f"{args.calls} calls at {args.rpm} rpm through LiteLLM's proxy; ideal {ideal:.0f} s")
    print("| pacing | wall time | 429s | x ideal |")
    for mode, seconds, limited in rows:
        print(f"| {mode} | {seconds:.0f} s | {limited} | {seconds / ideal:.2f} |")


if __name__ == "__main__":
    main()

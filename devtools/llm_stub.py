"""A local OpenAI-compatible server with deterministic synthetic answers: a
development and test tool, not part of the deployed app (nothing in the apps
imports it; it needs no Django).

``python -m devtools.llm_stub [--port N] [--latency-ms N] ...`` runs it (``make run``
does); the test fixtures and the benchmarks start it too. It
answers ``POST /v1/chat/completions`` (plain and streamed) and ``GET /v1/models``
with text built from the request: the step being worked on is read from the
prompt, and the reply has the shape that step asks for (eight numbered
challenges, a problem statement, eight solutions, five criteria, a valid scoring
grid, an action plan; an introduction in the warm-up). Every reply starts with a
line saying it is synthetic.

Fault injection: latency, a random fault rate, deterministic storms (the first N
requests of each distinct prompt fail), a provider that dies after N answers,
429 with Retry-After, 500, timeouts, empty replies; ``reasoning`` adds DeepSeek-
style ``reasoning_content`` (so does a model name containing "reasoning"; one containing "think"
puts the reasoning inline in ``<think>`` tags). ``GET /_stub/stats`` and ``POST /_stub/config``
observe and reconfigure a running stub; ``GET /_stub/requests`` returns the chat
requests it received, in order (the last ``MAX_RECORDED``). The Multi-Agent Debate's
moderator gets JSON with no preference after the first round and a preference after
later ones (so a debate stops early in round 2); a judge's JSON always answers;
TeamFusion's proxies rate in JSON (1-5). A CGPST judge prompt (``judging``) gets a
score sheet as JSON (``devtools.llm_judge_stub``), or a bad one on request (``judge_fault``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import signal
import threading
import time
import uuid
from collections import Counter
from dataclasses import asdict, dataclass, field, fields
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# The synthetic text lives in its own module; its names are the stub's interface too.
from devtools.llm_judge_stub import JUDGE_FAULTS, is_judge_request, judge_reply
from devtools.llm_synthetic import SYNTHETIC_NOTE as SYNTHETIC_NOTE
from devtools.llm_synthetic import _text, synthetic_reply
from devtools.llm_synthetic import detect_role as detect_role
from devtools.llm_synthetic import detect_step as detect_step
from devtools.llm_synthetic import scenario_keywords as scenario_keywords

FAULT_KINDS = ("429", "500", "timeout", "empty")
MAX_RECORDED = 2000


@dataclass
class StubConfig:
    latency_ms: int = 0
    fail_rate: float = 0.0
    faults: list[str] = field(default_factory=lambda: ["429", "500"])
    fail_first: int = 0  # the first N requests of each distinct prompt get a fault
    fail_after: int | None = None  # after N successful answers, every request gets a 500
    retry_after: float = 1.0  # seconds, sent with 429 (also as retry-after-ms)
    # When set, a 429 carries these headers instead (a gateway's or provider's own hints,
    # e.g. {"llm_provider-retry-after": "2"} or {"x-ratelimit-reset-requests": "1m0s"}).
    rate_limit_headers: dict[str, str] = field(default_factory=dict)
    # Headers every answer carries (a gateway's window: {"x-ratelimit-remaining-requests": "1"}).
    answer_headers: dict[str, str] = field(default_factory=dict)
    timeout_seconds: float = 30.0  # how long a "timeout" fault keeps the client waiting
    reasoning: bool = False
    require_key: str = ""  # when set, other keys get a 401 (which echoes them, as providers do)
    seed: int = 0
    # As an LLM judge (devtools.llm_judge_stub): the first N attempts of a judge
    # conversation answer with this fault (prose, truncated, category, range, extra, missing).
    judge_fault: str = ""
    judge_fault_attempts: int = 1

    def update(self, values: dict[str, Any]) -> None:
        known = {f.name for f in fields(self)}
        for key, value in values.items():
            if key not in known:
                raise ValueError(f"unknown stub setting {key!r}")
            setattr(self, key, value)
        bad = [f for f in self.faults if f not in FAULT_KINDS]
        if bad:
            raise ValueError(f"unknown fault kind(s) {bad}; known: {FAULT_KINDS}")
        if self.judge_fault and self.judge_fault not in JUDGE_FAULTS:
            raise ValueError(f"unknown judge fault {self.judge_fault!r}; known: {JUDGE_FAULTS}")


@dataclass
class StubStats:
    requests: int = 0
    completions: int = 0
    faults: Counter = field(default_factory=Counter)
    in_flight: int = 0
    max_in_flight: int = 0
    per_prompt: Counter = field(default_factory=Counter)
    auth_headers: list[str] = field(default_factory=list)
    last_body: dict[str, Any] = field(default_factory=dict)
    # Every chat request body, in order (the last MAX_RECORDED): ``GET /_stub/requests``.
    bodies: list[dict[str, Any]] = field(default_factory=list)
    # When each chat request arrived (time.monotonic(), the last MAX_RECORDED): pacing shows here.
    arrivals: list[float] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "completions": self.completions,
            "faults": dict(self.faults),
            "in_flight": self.in_flight,
            "max_in_flight": self.max_in_flight,
            "distinct_prompts": len(self.per_prompt),
            "repeated_prompts": sum(1 for n in self.per_prompt.values() if n > 1),
        }


# --- the server ---------------------------------------------------------------------


class StubServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256

    def __init__(self, address: tuple[str, int], config: StubConfig | None = None, quiet: bool = True):
        super().__init__(address, StubHandler)
        self.config = config or StubConfig()
        self.stats = StubStats()
        self.lock = threading.Lock()
        self.rng = random.Random(self.config.seed)
        self.quiet = quiet
        self.thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def configure(self, **values: Any) -> None:
        with self.lock:
            self.config.update(values)

    def reset(self, **values: Any) -> None:
        """Back to a healthy, fast stub with fresh statistics (plus ``values``)."""
        with self.lock:
            self.config = StubConfig()
            self.config.update(values)
            self.stats = StubStats()

    def start_in_thread(self) -> StubServer:
        self.thread = threading.Thread(target=self.serve_forever, name="llm-stub", daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    # decisions, under the lock
    def admit(self, messages: list[dict[str, Any]], auth: str) -> tuple[str | None, StubConfig, StubStats]:
        with self.lock:
            cfg = self.config
            stats = self.stats
            stats.requests += 1
            stats.arrivals = [*stats.arrivals[-(MAX_RECORDED - 1) :], time.monotonic()]
            stats.auth_headers = [*stats.auth_headers[-99:], auth]
            key = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
            stats.per_prompt[key] += 1
            fault = None
            if cfg.require_key and auth != f"Bearer {cfg.require_key}":
                fault = "401"
            elif cfg.fail_after is not None and stats.completions >= cfg.fail_after:
                fault = "500"
            elif cfg.fail_first and stats.per_prompt[key] <= cfg.fail_first:
                fault = cfg.faults[(stats.per_prompt[key] - 1) % len(cfg.faults)]
            elif cfg.fail_rate and self.rng.random() < cfg.fail_rate:
                fault = self.rng.choice(cfg.faults)
            if fault:
                stats.faults[fault] += 1
            if fault in (None, "timeout", "empty"):  # these reach the answer path
                stats.in_flight += 1
                stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
            return fault, StubConfig(**asdict(cfg)), stats

    def done(self, stats: StubStats, ok: bool) -> None:
        """Count an answer in the stats it was admitted into (a reset meanwhile starts new ones)."""
        with self.lock:
            stats.in_flight -= 1
            if ok:
                stats.completions += 1


class StubHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; without TCP_NODELAY the body waits for
    # the client's delayed ACK (~40 ms) on every keep-alive request.
    disable_nagle_algorithm = True
    server: StubServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        if not self.server.quiet:
            super().log_message(format, *args)

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(payload, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def _error(self, status: int, message: str, kind: str, headers: dict[str, str] | None = None) -> None:
        self._send_json(status, {"error": {"message": message, "type": kind, "code": None}}, headers)

    def _read_json(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"{}")

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        path = self.path.split("?")[0].rstrip("/")
        if path in ("/v1/models", "/models"):
            self._send_json(
                200,
                {"object": "list", "data": [{"id": "stub-cgpst", "object": "model", "owned_by": "llm_stub"}]},
            )
        elif path == "/_stub/stats":
            with self.server.lock:
                payload = {"config": asdict(self.server.config), "stats": self.server.stats.as_dict()}
            payload["config"].pop("require_key", None)
            self._send_json(200, payload)
        elif path == "/_stub/requests":
            with self.server.lock:
                bodies = list(self.server.stats.bodies)
            self._send_json(200, {"requests": bodies})
        else:
            self._error(404, f"no route {path}", "not_found")

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        started = time.monotonic()
        path = self.path.split("?")[0].rstrip("/")
        try:
            payload = self._read_json()
        except (ValueError, json.JSONDecodeError):
            self._error(400, "the body is not JSON", "invalid_request_error")
            return
        if path in ("/_stub/config", "/_stub/reset"):
            try:
                (self.server.reset if path.endswith("reset") else self.server.configure)(**payload)
            except (TypeError, ValueError) as exc:
                self._error(400, str(exc), "invalid_request_error")
                return
            self._send_json(200, {"ok": True})
        elif path in ("/v1/chat/completions", "/chat/completions"):
            self._chat(payload, started)
        else:
            self._error(404, f"no route {path}", "not_found")

    def _chat(self, payload: dict[str, Any], started: float) -> None:
        messages = payload.get("messages")
        if not isinstance(messages, list) or not messages:
            self._error(400, "messages must be a non-empty list", "invalid_request_error")
            return
        auth = self.headers.get("Authorization", "")
        fault, cfg, stats = self.server.admit(messages, auth)
        self.server.stats.last_body = payload
        with self.server.lock:
            self.server.stats.bodies = [*self.server.stats.bodies[-(MAX_RECORDED - 1) :], payload]
        if fault == "401":
            received = auth.removeprefix("Bearer ")
            self._error(401, f"Incorrect API key provided: {received}.", "invalid_request_error")
            return
        if fault == "429":
            self._error(
                429,
                "Rate limit reached (synthetic fault from llm_stub).",
                "rate_limit_error",
                dict(cfg.rate_limit_headers)
                or {
                    "Retry-After": f"{cfg.retry_after:g}",
                    "retry-after-ms": str(int(cfg.retry_after * 1000)),
                },
            )
            return
        if fault == "500":
            self._error(500, "The server had an error (synthetic fault from llm_stub).", "server_error")
            return
        ok = False
        try:
            if is_judge_request(messages):
                text, reasoning = (
                    judge_reply(payload, messages, cfg.judge_fault, cfg.judge_fault_attempts),
                    "",
                )
            else:
                text, reasoning = synthetic_reply(messages, cfg.seed)
            if fault == "timeout":
                time.sleep(cfg.timeout_seconds)
            elif cfg.latency_ms:
                # the configured latency is the response time: writing the reply is part of it
                time.sleep(max(0.0, cfg.latency_ms / 1000 - (time.monotonic() - started)))
            if fault == "empty":
                text = ""
            model = str(payload.get("model") or "stub-cgpst")
            with_reasoning = cfg.reasoning or "reasoning" in model
            if "think" in model:  # like some local servers: the reasoning inline, in <think> tags
                text, with_reasoning = f"<think>{reasoning}</think>\n{text}", False
            usage = {
                "prompt_tokens": sum(len(_text(m)) for m in messages) // 4,
                "completion_tokens": len(text) // 4,
            }
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
            if payload.get("stream"):
                self._stream(model, text, reasoning if with_reasoning else "", usage)
            else:
                message = {"role": "assistant", "content": text}
                if with_reasoning:
                    message["reasoning_content"] = reasoning
                self._send_json(
                    200,
                    {
                        "id": f"chatcmpl-stub-{uuid.uuid4().hex[:12]}",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": model,
                        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                        "usage": usage,
                    },
                    cfg.answer_headers,
                )
            ok = fault is None
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout)
        finally:
            self.server.done(stats, ok)

    def _stream(self, model: str, text: str, reasoning: str, usage: dict[str, int]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        cid = f"chatcmpl-stub-{uuid.uuid4().hex[:12]}"

        def chunk(delta: dict[str, Any], finish: str | None = None, with_usage: bool = False) -> None:
            body = {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": model,
                "choices": [] if with_usage else [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            if with_usage:
                body["usage"] = usage
            self.wfile.write(f"data: {json.dumps(body, ensure_ascii=False)}\n\n".encode())

        chunk({"role": "assistant", "content": ""})
        for piece in re.findall(r".{1,40}", reasoning, re.S):
            chunk({"reasoning_content": piece})
        for piece in re.findall(r".{1,40}", text, re.S):
            chunk({"content": piece})
        chunk({}, finish="stop")
        chunk({}, with_usage=True)
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def stub_serve(
    host: str = "127.0.0.1", port: int = 8765, config: StubConfig | None = None, quiet: bool = True
) -> StubServer:
    """A stub server bound to ``host:port`` (port 0 picks a free one); call
    ``serve_forever()`` or ``start_in_thread()`` on it."""
    return StubServer((host, port), config, quiet=quiet)


# --- the command line -------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m devtools.llm_stub",
        description=(
            "Run a local OpenAI-compatible server (/v1/chat/completions, /v1/models) that answers with "
            "deterministic synthetic CGPST text, with configurable latency and fault injection."
        ),
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument(
        "--port", type=int, default=int(os.environ.get("LLM_STUB_PORT", 8765)), help="0 picks a free port"
    )
    parser.add_argument("--latency-ms", type=int, default=0, help="delay of every answer")
    parser.add_argument(
        "--fail-rate", type=float, default=0.0, help="probability that a request gets a fault"
    )
    parser.add_argument(
        "--faults",
        default="429,500",
        help=f"comma-separated fault kinds to inject, from {','.join(FAULT_KINDS)}",
    )
    parser.add_argument("--fail-first", type=int, default=0, help="the first N requests of each prompt fail")
    parser.add_argument(
        "--fail-after", type=int, default=None, help="after N answers, every request gets a 500"
    )
    parser.add_argument("--retry-after", type=float, default=1.0, help="seconds in the Retry-After of a 429")
    parser.add_argument("--timeout-seconds", type=float, default=30.0, help="how long a timeout fault hangs")
    parser.add_argument("--reasoning", action="store_true", help="add reasoning_content to every answer")
    parser.add_argument(
        "--require-key-env",
        default="",
        help="name of an environment variable holding the only API key to accept (401 otherwise)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--verbose-http", action="store_true", help="log every request")
    return parser


def main(*, argv: list[str] | None = None) -> None:
    """Serve until Ctrl-C (SIGINT); bad options exit with status 2 and a message."""
    parser = _parser()
    opts = parser.parse_args(argv)
    if not 0 <= opts.fail_rate <= 1:
        parser.error("--fail-rate must be between 0 and 1")
    require_key = ""
    if opts.require_key_env:
        require_key = os.environ.get(opts.require_key_env, "")
        if not require_key:
            parser.error(f"environment variable {opts.require_key_env} is not set")
    config = StubConfig()
    try:
        config.update(
            {
                "latency_ms": opts.latency_ms,
                "fail_rate": opts.fail_rate,
                "faults": [f.strip() for f in opts.faults.split(",") if f.strip()],
                "fail_first": opts.fail_first,
                "fail_after": opts.fail_after,
                "retry_after": opts.retry_after,
                "timeout_seconds": opts.timeout_seconds,
                "reasoning": opts.reasoning,
                "require_key": require_key,
                "seed": opts.seed,
            }
        )
    except ValueError as exc:
        parser.error(str(exc))
    try:
        server = stub_serve(opts.host, opts.port, config, quiet=not opts.verbose_http)
    except OSError as exc:
        parser.error(f"cannot listen on {opts.host}:{opts.port}: {exc}")
    # Ctrl-C and SIGTERM stop it even when started in the background by a shell, which
    # starts it with SIGINT ignored (Python then installs no handler of its own).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    # Callers (make run, the tests, the benchmarks) read the URL from this first line.
    print(
        f"llm_stub: OpenAI-compatible synthetic answers at {server.base_url} "
        f"(latency {config.latency_ms} ms, fail rate {config.fail_rate:g}); Ctrl-C stops",
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()

"""``python manage.py llm_stub``: the bundled OpenAI-compatible stub server."""

from __future__ import annotations

import os

from django.core.management.base import BaseCommand, CommandError

from generation.stub import FAULT_KINDS, StubConfig, stub_serve


class Command(BaseCommand):
    help = (
        "Run a local OpenAI-compatible server (/v1/chat/completions, /v1/models) that answers with "
        "deterministic synthetic CGPST text, with configurable latency and fault injection."
    )

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=int(os.environ.get("LLM_STUB_PORT", 8765)))
        parser.add_argument("--latency-ms", type=int, default=0, help="delay of every answer")
        parser.add_argument(
            "--fail-rate", type=float, default=0.0, help="probability that a request gets a fault"
        )
        parser.add_argument(
            "--faults",
            default="429,500",
            help=f"comma-separated fault kinds to inject, from {','.join(FAULT_KINDS)}",
        )
        parser.add_argument(
            "--fail-first", type=int, default=0, help="the first N requests of each prompt fail"
        )
        parser.add_argument(
            "--fail-after", type=int, default=None, help="after N answers, every request gets a 500"
        )
        parser.add_argument(
            "--retry-after", type=float, default=1.0, help="seconds in the Retry-After of a 429"
        )
        parser.add_argument(
            "--timeout-seconds", type=float, default=30.0, help="how long a timeout fault hangs"
        )
        parser.add_argument("--reasoning", action="store_true", help="add reasoning_content to every answer")
        parser.add_argument(
            "--require-key-env",
            default="",
            help="name of an environment variable holding the only API key to accept (401 otherwise)",
        )
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--verbose-http", action="store_true", help="log every request")

    def handle(self, *args, **opts):
        if not 0 <= opts["fail_rate"] <= 1:
            raise CommandError("--fail-rate must be between 0 and 1")
        require_key = ""
        if opts["require_key_env"]:
            require_key = os.environ.get(opts["require_key_env"], "")
            if not require_key:
                raise CommandError(f"environment variable {opts['require_key_env']} is not set")
        config = StubConfig()
        try:
            config.update(
                {
                    "latency_ms": opts["latency_ms"],
                    "fail_rate": opts["fail_rate"],
                    "faults": [f.strip() for f in opts["faults"].split(",") if f.strip()],
                    "fail_first": opts["fail_first"],
                    "fail_after": opts["fail_after"],
                    "retry_after": opts["retry_after"],
                    "timeout_seconds": opts["timeout_seconds"],
                    "reasoning": opts["reasoning"],
                    "require_key": require_key,
                    "seed": opts["seed"],
                }
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        try:
            server = stub_serve(opts["host"], opts["port"], config, quiet=not opts["verbose_http"])
        except OSError as exc:
            raise CommandError(f"cannot listen on {opts['host']}:{opts['port']}: {exc}") from exc
        self.stdout.write(
            f"llm_stub: OpenAI-compatible synthetic answers at {server.base_url} "
            f"(latency {config.latency_ms} ms, fail rate {config.fail_rate:g}); Ctrl-C stops"
        )
        self.stdout.flush()
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()

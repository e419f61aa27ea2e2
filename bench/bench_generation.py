"""Benchmark: 100 TeamLLM runs (3,400 provider calls) through real Celery workers
against the bundled stub answering every call after a fixed latency.

Every call is a Celery task (replay the protocol from the persisted turns, take a
slot of the endpoint's limit, call the stub through the openai SDK, persist the
turn, enqueue the next call). With C slots (worker threads = endpoint limit) and
a latency L per call, no scheduler can beat the critical-path bound

    max(calls x L / C, longest run's calls x L, (calls - 1) x 60 / rpm)

(the last with ``--rpm``: the endpoint's requests-per-minute limit, as a provider's rate limit)

so the script reports the wall time as a ratio to that bound, and the
orchestration overhead per call, (wall - bound) x C / calls: the time a slot
spends per call on anything but waiting for the provider (and, for reference,
the wall time it adds per call, (wall - bound) / calls).

It builds a throw-away PostgreSQL database (``test_<name of DATABASE_URL's db>``),
starts the stub (its own process) and the workers, launches one batch of
``--runs`` scenarios x the stub endpoint x TeamLLM, waits, checks that every run
produced its response with exactly 34 turns, and drops the database.

Run: ``DATABASE_URL=postgres://... REDIS_URL=redis://... .venv/bin/python bench/bench_generation.py
[--runs 100] [--latency-ms 100] [--workers 1] [--threads 16] [--rpm N]`` (``BENCH_WORKER_LOG=info`` keeps the
workers' task log in ``var/``; ``BENCH_WORKER_ARGS`` adds worker options).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SESSION = f"bench-gen-{os.getpid()}"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teamllm_web.settings.test")
os.environ["CELERY_QUEUE"] = SESSION
os.environ["REDIS_KEY_PREFIX"] = SESSION
# production defaults for the generation timers, not the test suite's quick ones
os.environ.setdefault("GENERATION_HEARTBEAT_SECONDS", "10")
os.environ.setdefault("GENERATION_STALE_SECONDS", "60")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402


def start_stub(latency_ms: int) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "devtools.llm_stub", "--port", "0", "--latency-ms", str(latency_ms)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    line = proc.stdout.readline().decode()
    match = re.search(r"(http://\S+/v1)", line)
    if not match:
        raise SystemExit(f"the stub did not start: {line}")
    return proc, match[1]


def start_workers(n: int, threads: int, database_url: str) -> list[subprocess.Popen]:
    env = {**os.environ, "DATABASE_URL": database_url, "PYTHONUNBUFFERED": "1"}
    procs = []
    for i in range(n):
        cmd = [
            sys.executable, "-m", "celery", "-A", "teamllm_web", "worker", "-Q", SESSION,
            "-n", f"{SESSION}-{i}@localhost", "--pool=threads", "-c", str(threads), "-l", os.environ.get("BENCH_WORKER_LOG", "warning"),
            "--without-gossip", "--without-mingle", "--without-heartbeat", *os.environ.get("BENCH_WORKER_ARGS", "").split(),
        ]  # fmt: skip
        log = open(Path(settings.VAR_DIR) / f"{SESSION}-worker{i}.log", "wb")  # noqa: SIM115
        procs.append(subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT))
    from teamllm_web.celery import app

    names = [f"{SESSION}-{i}@localhost" for i in range(n)]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if len(app.control.ping(destination=names, timeout=0.5)) == n:
            return procs
    raise SystemExit("workers did not start")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def database_url(name: str) -> str:
    db = settings.DATABASES["default"]
    auth = db.get("USER") or ""
    if db.get("PASSWORD"):
        auth += f":{db['PASSWORD']}"
    host = db.get("HOST") or "127.0.0.1"
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgres://{auth + '@' if auth else ''}{host}{port}/{name}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--latency-ms", type=int, default=100)
    parser.add_argument("--workers", type=int, default=1, help="worker processes")
    parser.add_argument("--threads", type=int, default=16, help="threads per worker process")
    parser.add_argument("--rpm", type=int, default=0, help="the endpoint's requests per minute (0: none)")
    args = parser.parse_args()
    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        raise SystemExit("set DATABASE_URL (PostgreSQL) and REDIS_URL")
    slots = args.workers * args.threads

    old_name = connection.settings_dict["NAME"]
    test_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    stub = workers = None
    try:
        from generation.models import GenerationRun, RunStatus, Turn
        from generation.services.batches import batch_create
        from generation.tasks import run_advance_send
        from studies.models import Condition, ModelEndpoint, Response, Scenario, Study
        from studies.services.setup import conditions_ensure_defaults

        stub, base_url = start_stub(args.latency_ms)
        workers = start_workers(args.workers, args.threads, database_url(test_name))
        conditions_ensure_defaults()
        study = Study.objects.create(name="bench generation")
        scenarios = [
            Scenario.objects.create(
                study=study, code=f"B{i:03d}", theme="bench", text=f"Scenario {i}: ocean soup."
            )
            for i in range(args.runs)
        ]
        endpoint = ModelEndpoint.objects.create(
            name="stub", model_number="90", base_url=base_url, model_name="stub-cgpst",
            concurrency_limit=slots, timeout_seconds=30, requests_per_minute=args.rpm or None,
        )  # fmt: skip
        cpu_before = {p.pid: cpu_seconds(p.pid) for p in [*workers, stub]}
        started = time.monotonic()
        launch = batch_create(
            study=study,
            scenarios=scenarios,
            endpoints=[endpoint],
            conditions=[Condition.objects.get(letter="A")],
            enqueue=run_advance_send,
        )
        launched = time.monotonic()
        active = GenerationRun.objects.filter(
            batch=launch.batch, status__in=[RunStatus.QUEUED, RunStatus.RUNNING]
        )
        while active.exists():
            time.sleep(0.05)
        wall = time.monotonic() - started
        cpu = {p.pid: cpu_seconds(p.pid) - cpu_before[p.pid] for p in [*workers, stub]}

        runs = GenerationRun.objects.filter(batch=launch.batch)
        calls = Turn.objects.filter(run__batch=launch.batch).count()
        per_run = max(r.calls_total for r in runs)
        paced = (calls - 1) * 60 / args.rpm if args.rpm else 0.0
        bound = max(calls * args.latency_ms / 1000 / slots, per_run * args.latency_ms / 1000, paced)
        failed = runs.exclude(status=RunStatus.SUCCEEDED).count()
        turn_counts = set(runs.values_list("calls_done", flat=True))
        latencies = sorted(Turn.objects.filter(run__batch=launch.batch).values_list("latency_ms", flat=True))
        print(
            f"runs: {runs.count()} ({failed} not succeeded), responses: {Response.objects.filter(study=study).count()}"
        )
        print(f"turns: {calls} (per run: {sorted(turn_counts)})")
        print(
            f"slots: {slots} ({args.workers} worker x {args.threads} threads), stub latency {args.latency_ms} ms, "
            f"rpm limit {args.rpm or 'none'}"
        )
        print(f"launch (create {args.runs} runs, enqueue): {launched - started:.2f} s")
        print(f"provider call as seen by the client: median {latencies[len(latencies) // 2]} ms, "
              f"p99 {latencies[int(len(latencies) * 0.99)]} ms")  # fmt: skip
        print(f"wall: {wall:.2f} s, critical-path bound: {bound:.2f} s, ratio: {wall / bound:.3f}")
        print(
            f"orchestration overhead per call: {(wall - bound) * slots / calls * 1000:.2f} ms per slot "
            f"((wall - bound) x slots / calls); {(wall - bound) / calls * 1000:.2f} ms of wall time "
            "((wall - bound) / calls)"
        )
        worker_cpu = sum(cpu[p.pid] for p in workers)
        print(f"CPU per call: workers {worker_cpu / calls * 1000:.2f} ms, stub {cpu[stub.pid] / calls * 1000:.2f} ms; "
              f"load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    finally:
        for proc in workers or []:
            proc.send_signal(signal.SIGTERM)
        for proc in workers or []:
            proc.wait(timeout=60)
        if stub is not None:
            stub.send_signal(signal.SIGINT)
            stub.wait(timeout=10)
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()

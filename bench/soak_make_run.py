"""Soak test of `make run`'s embedded default (issue 24): start scripts/run.sh in a scratch
var/ directory on free ports, launch N generation batches as the demo admin while /status/ is
polled every second, wait until every run ended, and report: runs succeeded, worker crashes or
restarts seen in run.sh's output, /status/ answers. Exits 1 if a launch made no run, a run did
not succeed, the worker crashed or a /status/ poll got no answer (counted as 0).

Each launch makes a new run: launch n takes condition n % 6 (B first, then A, C, D, E, F) on
endpoint n // 6, where the endpoints past the demo's stub are copies of it that the soak adds
through the endpoint page and the study's catalogue page, as an admin would (a launch of a
research ID that has a run already would make none).

    .venv/bin/python bench/soak_make_run.py --launches 200      # the soak (bench/README.md)
    .venv/bin/python bench/soak_make_run.py --launches 3        # what the suite runs

Without DATABASE_URL/REDIS_URL in its environment (they are removed here), run.sh uses SQLite
and starts its own Redis when redis-server is installed, else the filesystem broker
(``--no-redis`` forces that with ``RUN_BROKER=filesystem``).
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "demo-pass-2026"
CRASH = re.compile(r"Unrecoverable error|JSONDecodeError")
RESTART = re.compile(r"the Celery worker exited")
CONDITION_ORDER = "BACDEF"  # the cheapest run first: the suite's short soak launches three
ENDPOINT_COPY_FIELDS = (
    "base_url",
    "model_name",
    "api_key_env",
    "concurrency_limit",
    "timeout_seconds",
    "extra_params",
    "notes",
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Browser:
    def __init__(self, base: str):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def csrf(self) -> str:
        return next((c.value for c in self.jar if c.name == "csrftoken"), "")

    def get(self, path: str, timeout: float = 10) -> tuple[int, bytes]:
        try:
            with self.opener.open(self.base + path, timeout=timeout) as reply:
                return reply.status, reply.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def post(self, path: str, fields: list[tuple[str, str]]) -> int:
        data = urllib.parse.urlencode([("csrfmiddlewaretoken", self.csrf()), *fields]).encode()
        request = urllib.request.Request(  # noqa: S310 - our own http:// base URL
            self.base + path, data=data, headers={"Referer": self.base + path}
        )
        try:
            with self.opener.open(request, timeout=30) as reply:
                return reply.status
        except urllib.error.HTTPError as exc:
            return exc.code

    def login(self, username: str) -> None:
        self.get("/accounts/login/")
        self.post("/accounts/login/", [("username", username), ("password", PASSWORD)])


def wait_healthy(base: str, proc: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"run.sh exited ({proc.returncode}) before answering")
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=2) as reply:  # noqa: S310 - http://
                if reply.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"no answer on {base}/healthz within {timeout:.0f} s")


def _worker_pid(session: int) -> int | None:
    out = subprocess.run(
        ["ps", "-o", "pid=,args=", "-s", str(session)], capture_output=True, text=True
    ).stdout
    for line in out.splitlines():
        pid, _, args = line.strip().partition(" ")
        if "celery" in args and " worker" in args:
            return int(pid)
    return None


def launch_plan(
    *, admin: Browser, db: sqlite3.Connection, study: int, launches: int
) -> list[tuple[int, int]]:
    """(endpoint, condition) of each launch, all different: copies of the stub endpoint are
    created and chosen for the study through the pages until there are enough."""
    conditions = dict(db.execute("select letter, id from studies_condition").fetchall())
    letters = [letter for letter in CONDITION_ORDER if letter in conditions]
    needed = -(-launches // len(letters))
    columns = ", ".join(ENDPOINT_COPY_FIELDS)
    stub = dict(
        zip(
            ENDPOINT_COPY_FIELDS,
            db.execute(f"select {columns} from studies_modelendpoint where name = 'stub'").fetchone(),  # noqa: S608
            strict=True,
        )
    )
    for k in range(1, needed):
        fields = [(key, str(value)) for key, value in stub.items()]
        fields += [("name", f"stub copy {k}"), ("model_number", str(40 + k))]
        answer = admin.post("/manage/endpoints/new/", fields)
        if answer != 200:
            raise RuntimeError(f"creating endpoint copy {k} answered {answer}")
    endpoints = [
        row[0]
        for row in db.execute(
            "select id from studies_modelendpoint where name = 'stub' or name like 'stub copy %' order by id"
        ).fetchall()
    ]
    chosen = {
        row[0]
        for row in db.execute(
            "select modelendpoint_id from studies_study_endpoints where study_id = ?", (study,)
        )
    }
    catalogue = [("endpoints", str(pk)) for pk in sorted(chosen | set(endpoints))]
    catalogue += [("conditions", str(pk)) for pk in conditions.values()]
    answer = admin.post(f"/manage/studies/{study}/catalogue/", catalogue)
    if answer != 200:
        raise RuntimeError(f"choosing the study's endpoints answered {answer}")
    return [(endpoints[n // len(letters)], conditions[letters[n % len(letters)]]) for n in range(launches)]


NO_ANSWER = 0  # a /status/ poll that got no answer (refused, reset, or none within its timeout)


def poll_status(watcher: Browser, stop: threading.Event, statuses: list[int]) -> None:
    """GET /status/ every second until ``stop``; a poll without an answer counts as
    ``NO_ANSWER`` (before, it raised and ended the polling unseen: the report then showed
    only the answers given before it)."""
    while not stop.wait(1.0):
        try:
            statuses.append(watcher.get("/status/", timeout=5)[0])
        except OSError:
            statuses.append(NO_ANSWER)


def soak(*, launches: int, redis: bool = True, kill_worker: bool = False, timeout: float = 1800) -> dict:
    var = Path(tempfile.mkdtemp(prefix="soak-make-run-"))
    port, stub_port, redis_port = free_port(), free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env.update(
        TEAMLLM_VAR_DIR=str(var),
        PORT=str(port),
        LLM_STUB_PORT=str(stub_port),
        RUN_REDIS_PORT=str(redis_port),
        LLM_STUB_LATENCY_MS="20",
    )
    if not redis:
        env["RUN_BROKER"] = "filesystem"  # as on a machine without redis-server
    if kill_worker:
        # Tasks the killed worker had taken but not started are lost with it; the sweeper
        # queues their runs again once ENGINE_START_SECONDS passed (300 s by default, which
        # is longer than the suite's short soak waits).
        env.setdefault("ENGINE_START_SECONDS", "45")
    log = var / "run.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            ["bash", "scripts/run.sh"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    statuses: list[int] = []
    stop = threading.Event()
    try:
        wait_healthy(base, proc, 300)
        admin = Browser(base)
        admin.login("admin")
        db = sqlite3.connect(var / "db.sqlite3", timeout=30)
        (study,) = db.execute("select id from studies_study where name = 'CGPST demo'").fetchone()
        (scenario,) = db.execute("select id from studies_scenario where code = 'FS10'").fetchone()
        combos = launch_plan(admin=admin, db=db, study=study, launches=launches)

        watcher = Browser(base)
        watcher.login("admin")
        poller = threading.Thread(target=poll_status, args=(watcher, stop, statuses), daemon=True)
        poller.start()
        started = time.monotonic()
        answers = [
            admin.post(
                "/manage/generation/",
                [
                    ("study", str(study)),
                    ("scenarios", str(scenario)),
                    ("endpoints", str(endpoint)),
                    ("conditions", str(condition)),
                    ("name", f"soak {n}"),
                ],
            )
            for n, (endpoint, condition) in enumerate(combos)
        ]
        killed = None
        if kill_worker:  # a worker that dies is restarted by run.sh; the web server stays up
            killed = _worker_pid(proc.pid)
            if killed:
                os.kill(killed, signal.SIGKILL)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            counts = dict(
                db.execute("select status, count(*) from generation_generationrun group by status").fetchall()
            )
            # a launch of a run that exists already (same research ID) makes no new run
            if counts and not counts.get("queued") and not counts.get("running"):
                break
            if proc.poll() is not None:
                break
            time.sleep(2)
        elapsed = time.monotonic() - started
        # then until /status/ says ready again: a restarted worker takes a while on a busy machine
        while time.monotonic() < deadline and (not statuses or statuses[-1] != 200) and proc.poll() is None:
            time.sleep(1)
        stop.set()
        poller.join(timeout=10)
        text = log.read_text(errors="replace")
        report = {
            "launches": launches,
            "launch_answers": {str(k): answers.count(k) for k in sorted(set(answers))},
            "runs": counts,
            "runs_made": sum(counts.values()),
            "seconds": round(elapsed, 1),
            "status_polls": len(statuses),
            "status_codes": {str(k): statuses.count(k) for k in sorted(set(statuses))},
            "status_last": statuses[-1] if statuses else None,
            "worker_crashes": len(CRASH.findall(text)),
            "worker_killed": killed,
            "worker_restarts": len(RESTART.findall(text)),
            "healthz_after": Browser(base).get("/healthz")[0],
            "run_sh_alive": proc.poll() is None,
            "broker": "redis (started by run.sh)" if "filesystem broker" not in text else "filesystem",
            "log": str(log),
            # what the start-up block says a command beside it needs, and no worker banner around it
            "beside": next(
                (line.strip() for line in text.splitlines() if "A command beside it:" in line), ""
            ),
            "worker_banner": "-------------- celery@" in text,
        }
        return report
    finally:
        stop.set()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--launches", type=int, default=200)
    parser.add_argument(
        "--no-redis", action="store_true", help="the filesystem broker (RUN_BROKER=filesystem)"
    )
    parser.add_argument("--kill-worker", action="store_true", help="kill the worker once after the launches")
    opts = parser.parse_args()
    report = soak(launches=opts.launches, redis=not opts.no_redis, kill_worker=opts.kill_worker)
    print(json.dumps(report, indent=2))
    runs = report["runs"]
    ok = (
        runs.get("succeeded", 0) == sum(runs.values()) == opts.launches
        and not report["worker_crashes"]
        and report["run_sh_alive"]
        and not report["status_codes"].get(str(NO_ANSWER))  # /status/ answered every poll
    )
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()

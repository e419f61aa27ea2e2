"""`make run`'s embedded default survives (issue 24, finding 1): a short version of the soak in
bench/soak_make_run.py (launches with /status/ polled every second, on its own Redis), a killed
worker restarted with the web server up, and a taken port reported at once with PORT."""

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

pytestmark = pytest.mark.worker


def test_a_short_soak_ends_without_a_worker_crash_and_a_killed_worker_comes_back():
    from bench.soak_make_run import soak

    report = soak(launches=3, kill_worker=True, timeout=300)
    assert report["worker_crashes"] == 0, report
    assert report["runs"] == {"succeeded": 3}, report  # each launch made its own run
    # 503 only while the killed worker is away (no worker consumes the queue)
    assert report["status_polls"] >= 1 and set(report["status_codes"]) <= {"200", "503"}, report
    assert report["status_last"] == 200, report  # ready again once the worker is back
    assert report["worker_killed"] and report["worker_restarts"] == 1, report
    assert report["run_sh_alive"] and report["healthz_after"] == 200, report


def test_a_taken_port_is_reported_at_once_with_the_setting_to_use(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
        env.update(PORT=str(port), TEAMLLM_VAR_DIR=str(tmp_path))
        done = subprocess.run(
            ["bash", "scripts/run.sh"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )
    assert done.returncode == 2
    assert f"port {port} on 127.0.0.1 is taken" in done.stderr
    assert f"PORT={port + 1} make run" in done.stderr
    assert not (tmp_path / "db.sqlite3").exists()


def test_a_status_poll_without_an_answer_is_counted_and_polling_goes_on():
    """Found reading the soak: a /status/ poll that got no answer (refused, or nothing within
    its 5 s) raised in the polling thread and ended it unseen, so the report counted only the
    answers before it ("257 of 257 200s" could hide a web server that stopped answering)."""
    from bench.soak_make_run import Browser, poll_status

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens on it once closed
    stop, statuses = threading.Event(), []
    poller = threading.Thread(target=poll_status, args=(Browser(f"http://127.0.0.1:{port}"), stop, statuses))
    poller.start()
    stop.wait(3.5)
    stop.set()
    poller.join(timeout=10)
    assert len(statuses) >= 2 and set(statuses) == {0}, statuses

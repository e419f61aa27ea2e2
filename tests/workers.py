"""A real Celery worker process for the test suite, on the session's own queue."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent


def database_url_for_tests() -> str:
    """The URL of the (already created) test database, for child processes."""
    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    user = db.get("USER") or ""
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    auth = f"{user}{password}@" if user else ""
    host = db.get("HOST") or "127.0.0.1"
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgres://{auth}{host}{port}/{db['NAME']}"


def child_env(**extra: str) -> dict[str, str]:
    env = os.environ.copy()
    env.update(
        DJANGO_SETTINGS_MODULE="teamllm_web.settings.test",
        DATABASE_URL=database_url_for_tests(),
        CELERY_BROKER_URL=settings.CELERY_BROKER_URL,
        CELERY_QUEUE=settings.CELERY_TASK_DEFAULT_QUEUE,
        REDIS_KEY_PREFIX=settings.REDIS_KEY_PREFIX,
        TEAMLLM_VAR_DIR=str(settings.VAR_DIR),
        # the demo fixture turns demo mode on: its accounts log in only then (teamllm_web.auth)
        DEMO_MODE="1" if settings.DEMO_MODE else "0",
        PYTHONUNBUFFERED="1",
    )
    if settings.REDIS_URL:
        env["REDIS_URL"] = settings.REDIS_URL
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # set in the test process while Playwright's loop is up
    env.update(extra)
    return env


class WorkerProcess:
    """``celery worker`` as a child process; can be stopped, killed and restarted."""

    def __init__(
        self,
        concurrency: int = 4,
        pool: str = "threads",
        extra_env: dict[str, str] | None = None,
        cwd: Path | None = None,
    ):
        """``cwd``: the worker's working directory (default: the checkout), e.g. an empty folder
        for a worker "on another host" (the checkout is then on its PYTHONPATH)."""
        self.concurrency = concurrency
        self.pool = pool
        self.extra_env = extra_env or {}
        if cwd is not None:
            self.extra_env.setdefault("PYTHONPATH", str(ROOT))
        self.cwd = cwd or ROOT
        self.proc: subprocess.Popen | None = None
        self.nodename = ""
        self.started_at: datetime | None = None  # the last start: what a killed worker owed is older
        self.log_path = Path(cwd or settings.VAR_DIR) / f"test-worker-{os.getpid()}.log"

    def start(self, timeout: float = 60) -> WorkerProcess:
        self.nodename = f"test-{uuid.uuid4().hex[:8]}@localhost"
        self.started_at = datetime.now(UTC)
        cmd = [
            sys.executable, "-m", "celery", "-A", "teamllm_web", "worker",
            "-Q", settings.CELERY_TASK_DEFAULT_QUEUE, "-n", self.nodename,
            f"--pool={self.pool}", "-c", str(self.concurrency), "-l", "info",
            "--without-gossip", "--without-mingle",
        ]  # fmt: skip
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            cmd,
            cwd=self.cwd,
            env=child_env(**self.extra_env),
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            self._wait_ready(timeout)
        except BaseException:
            self.stop()  # a worker that never answered is not left running after the session
            raise
        return self

    def _wait_ready(self, timeout: float) -> None:
        from teamllm_web.celery import app

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"worker exited early; see {self.log_path}")
            if app.control.ping(destination=[self.nodename], timeout=0.5):
                return
        raise RuntimeError(f"worker did not answer within {timeout}s; see {self.log_path}")

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        if self.alive:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        if getattr(self, "_log", None):
            self._log.close()

    def pause(self) -> None:
        """SIGSTOP the whole worker (a frozen container, a suspended host); ``resume`` goes on."""
        os.killpg(self.proc.pid, signal.SIGSTOP)

    def resume(self) -> None:
        os.killpg(self.proc.pid, signal.SIGCONT)

    def kill(self) -> None:
        """SIGKILL the whole worker (as a crash or an OOM kill would)."""
        if self.alive:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        if getattr(self, "_log", None):
            self._log.close()


_session_workers: list[WorkerProcess] = []  # the session's shared worker, once started


def session_worker_register(worker: WorkerProcess) -> None:
    _session_workers.append(worker)


def session_worker_stop() -> None:
    """Stop the session's shared worker if it runs (``celery_worker`` starts it again).

    Every worker sweeps the task outbox of the test database: a test that keeps tasks
    pending on purpose (its broker is away) stops it, or it would send them through
    the session's broker."""
    for worker in _session_workers:
        worker.stop()


def wait_for(predicate, timeout: float = 60.0, worker: WorkerProcess | None = None):
    """Poll ``predicate`` until it returns something truthy and return that; on timeout
    fail the test with the end of the worker's log (when given)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    log = worker.log_path.read_text()[-3000:] if worker and worker.log_path.exists() else ""
    raise AssertionError(f"condition not met within {timeout}s\n{log}")

"""Periodic jobs that every worker runs in a background thread (infrastructure).

Apps register their jobs when a worker is ready (``worker_ready`` in their
``tasks.py``): the outbox sweep (``studies.tasks``), the cleanup of expired exports
(``research.tasks``). ``make run`` and docker compose start only ``celery worker``,
so no beat process is needed; every worker runs every job, so jobs must be safe to
run concurrently (they claim or lock what they work on). A failing job is logged and
tried again at its next period; it never stops the others.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

logger = logging.getLogger(__name__)


@dataclass
class Job:
    name: str
    every: float
    run: Callable[[], object]
    due: float = 0.0  # time.monotonic() of the next run


@dataclass
class Periodic:
    jobs: dict[str, Job] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    thread: threading.Thread | None = None

    def every(self, seconds: float, *, name: str, run: Callable[[], object], now: bool = True) -> None:
        """Run ``run`` every ``seconds`` in this process's periodic thread (first at
        once unless ``now`` is False). Registering a name again replaces the job."""
        with self.lock:
            due = time.monotonic() + (0.0 if now else seconds)
            self.jobs[name] = Job(name=name, every=float(seconds), run=run, due=due)
        self.ensure_started()

    def ensure_started(self) -> None:
        with self.lock:
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._loop, name="periodic-jobs", daemon=True)
                self.thread.start()

    def tick(self) -> None:
        """Run the jobs that are due (each in turn, in this thread)."""
        from django.db import connections

        with self.lock:
            due = [job for job in self.jobs.values() if job.due <= time.monotonic()]
        try:
            for job in due:
                job.due = time.monotonic() + job.every
                try:
                    job.run()
                except Exception:
                    logger.exception("periodic job %s failed", job.name)
        finally:
            connections.close_all()  # this thread's own: it holds none between ticks

    def _sleep_seconds(self) -> float:
        with self.lock:
            every = [job.every for job in self.jobs.values()]
        return min([1.0, *every]) / 2 if every else 1.0

    def _loop(self) -> None:
        while True:
            time.sleep(self._sleep_seconds())
            try:
                self.tick()
            except Exception:
                logger.exception("periodic jobs tick failed")


_periodic = Periodic()


def periodic() -> Periodic:
    return _periodic

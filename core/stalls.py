"""How long this process stood still: stopped (SIGSTOP, a frozen container, a suspended VM),
time that the monotonic clock counts while no thread ran.

A thread wakes every ``TICK_SECONDS``; a wake-up later than that by more than
``TOLERANCE_SECONDS`` means the whole process was stopped for the difference. Work timers
(the engine's active time of a job) subtract it, so that a worker paused for minutes does
not report minutes of work. Precise to about a tick.
"""

from __future__ import annotations

import threading
import time

TICK_SECONDS = 1.0
# A busy process wakes a little late now and then (the GIL, the scheduler): not a stall.
TOLERANCE_SECONDS = 1.0


class StallMeter:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stalled = 0.0
        self._sleep_started: float | None = None
        self._thread: threading.Thread | None = None

    def stalled_seconds(self) -> float:
        """Seconds this process stood still since the meter started (it starts on first use),
        the stall going on now included: after a stop, the thread that was stopped mid-work
        may read this before the meter's own thread has woken up to record it."""
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="stall-meter", daemon=True)
                self._thread.start()
            late = 0.0
            if self._sleep_started is not None:
                late = time.monotonic() - self._sleep_started - TICK_SECONDS
            return self._stalled + (late if late > TOLERANCE_SECONDS else 0.0)

    def _loop(self) -> None:
        while True:
            with self._lock:
                self._sleep_started = started = time.monotonic()
            time.sleep(TICK_SECONDS)
            with self._lock:
                late = time.monotonic() - started - TICK_SECONDS
                self._sleep_started = None
                if late > TOLERANCE_SECONDS:
                    self._stalled += late


_meter = StallMeter()


def stall_meter() -> StallMeter:
    return _meter

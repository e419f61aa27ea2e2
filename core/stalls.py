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
        self._thread: threading.Thread | None = None

    def stalled_seconds(self) -> float:
        """Seconds this process stood still since the meter started (it starts on first use)."""
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="stall-meter", daemon=True)
                self._thread.start()
            return self._stalled

    def note(self, late: float) -> None:
        """A wake-up ``late`` seconds after it was due."""
        if late > TOLERANCE_SECONDS:
            with self._lock:
                self._stalled += late

    def _loop(self) -> None:
        while True:
            before = time.monotonic()
            time.sleep(TICK_SECONDS)
            self.note(time.monotonic() - before - TICK_SECONDS)


_meter = StallMeter()


def stall_meter() -> StallMeter:
    return _meter

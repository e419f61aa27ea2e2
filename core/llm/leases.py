"""Counting semaphores shared by every worker: the per-endpoint concurrency limit
and the one-task-at-a-time lock of a run (a semaphore of one).

Two backends, chosen automatically:

* **Redis** (``REDIS_URL`` set): a sorted set per key holds the leases, scored by
  their expiry (Redis server time, so worker clocks do not matter). A lease lives
  ``lease_ttl()`` seconds unless renewed; a background thread of each process
  renews the leases it holds, so a killed worker's slots free themselves.
* **Files** (no Redis: ``make run`` with SQLite and the filesystem broker, where all
  workers share one machine): ``limit`` lock files per key, taken with
  ``flock``. The kernel drops the lock when the holding process dies.

The same background thread (the :class:`Keeper`) beats the heartbeat of the runs
this process is working on, and, in worker processes, sweeps dead runs. What
beating and sweeping mean is domain code, which the keeper gets as callbacks from
the worker's wiring (``generation.tasks``): this module imports nothing of the
project, so no import cycle runs through it.
"""

from __future__ import annotations

import fcntl
import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from django.conf import settings

logger = logging.getLogger(__name__)

_ACQUIRE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
  redis.call('PEXPIRE', KEYS[1], math.ceil(tonumber(ARGV[2]) * 1000) + 1000)
  return 1
end
return 0
"""
_RENEW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local alive = 0
for i, token in ipairs(ARGV) do
  if i > 1 then
    local expiry = redis.call('ZSCORE', KEYS[i - 1], token)
    if expiry and tonumber(expiry) > now then
      redis.call('ZADD', KEYS[i - 1], now + tonumber(ARGV[1]), token)
      redis.call('PEXPIRE', KEYS[i - 1], math.ceil(tonumber(ARGV[1]) * 1000) + 1000)
      alive = alive + 1
    end
  end
end
return alive
"""
_COUNT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
"""


def heartbeat_seconds() -> float:
    return float(settings.GENERATION_HEARTBEAT_SECONDS)


def lease_ttl() -> float:
    """A lease outlives three missed renewals."""
    return 3 * heartbeat_seconds()


@dataclass(eq=False)
class Lease:
    key: str
    token: str
    handle: Any = None  # the open lock file (file backend)


class RedisSemaphores:
    name = "redis"

    def __init__(self, url: str, prefix: str, timeout: float | None = None):
        import redis

        # A hanging Redis raises after ``timeout`` instead of holding the worker forever.
        self.client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        self.prefix = prefix
        self._acquire = self.client.register_script(_ACQUIRE)
        self._renew = self.client.register_script(_RENEW)
        self._count = self.client.register_script(_COUNT)

    def _key(self, key: str) -> str:
        return f"{self.prefix}:gen:sem:{key}"

    def try_acquire(self, key: str, limit: int) -> Lease | None:
        token = uuid.uuid4().hex
        if self._acquire(keys=[self._key(key)], args=[limit, lease_ttl(), token]):
            return Lease(key, token)
        return None

    def release(self, lease: Lease) -> None:
        self.client.zrem(self._key(lease.key), lease.token)

    def renew(self, leases: list[Lease]) -> int:
        if not leases:
            return 0
        return int(
            self._renew(
                keys=[self._key(lease.key) for lease in leases],
                args=[lease_ttl()] + [x.token for x in leases],
            )
        )

    def holders(self, key: str) -> int:
        return int(self._count(keys=[self._key(key)]))


class FileSemaphores:
    name = "file"

    def __init__(self, directory: Path):
        self.directory = directory

    def _slots(self, key: str, limit: int) -> list[Path]:
        folder = self.directory / key.replace(":", "-")
        folder.mkdir(parents=True, exist_ok=True)
        return [folder / f"slot-{i}.lock" for i in range(limit)]

    def try_acquire(self, key: str, limit: int) -> Lease | None:
        for path in self._slots(key, limit):
            handle = open(path, "a+b")  # noqa: SIM115 - held open while the lease lives
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                continue
            return Lease(key, path.name, handle)
        return None

    def release(self, lease: Lease) -> None:
        if lease.handle is not None:
            fcntl.flock(lease.handle, fcntl.LOCK_UN)
            lease.handle.close()
            lease.handle = None

    def renew(self, leases: list[Lease]) -> int:
        return len(leases)  # flock needs no renewal: it lives as long as the process

    def holders(self, key: str) -> int:
        folder = self.directory / key.replace(":", "-")
        busy = 0
        for path in folder.glob("slot-*.lock") if folder.exists() else []:
            with open(path, "a+b") as handle:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    fcntl.flock(handle, fcntl.LOCK_UN)
                except BlockingIOError:
                    busy += 1
        return busy


_backend: RedisSemaphores | FileSemaphores | None = None
_backend_lock = threading.Lock()


def semaphores() -> RedisSemaphores | FileSemaphores:
    global _backend
    with _backend_lock:
        if _backend is None:
            if settings.REDIS_URL:
                _backend = RedisSemaphores(
                    settings.REDIS_URL, settings.REDIS_KEY_PREFIX, settings.REDIS_TIMEOUT_SECONDS
                )
            else:
                _backend = FileSemaphores(Path(settings.VAR_DIR) / "locks" / settings.REDIS_KEY_PREFIX)
        return _backend


def endpoint_key(endpoint_id: int) -> str:
    return f"endpoint:{endpoint_id}"


def run_key(run_id: int) -> str:
    return f"run:{run_id}"


def acquire(key: str, limit: int, *, wait: float, poll: float = 0.02) -> Lease | None:
    """Take a slot, waiting up to ``wait`` seconds; the keeper renews it until released."""
    backend = semaphores()
    deadline = time.monotonic() + wait
    delay = poll
    while True:
        lease = backend.try_acquire(key, limit)
        if lease is not None:
            keeper().hold(lease)
            return lease
        if time.monotonic() >= deadline:
            return None
        time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
        delay = min(delay * 1.5, 0.25)


def release(lease: Lease) -> None:
    keeper().drop(lease)
    try:
        semaphores().release(lease)
    except Exception:  # the lease expires on its own; never fail a turn for it
        logger.warning("could not release lease %s", lease.key, exc_info=True)


# --- the keeper thread --------------------------------------------------------------


class Heartbeat(Protocol):
    """Refreshes the heartbeat of the runs this process works on."""

    def __call__(self, *, run_ids: list[int]) -> object: ...


@dataclass
class Keeper:
    """Per process: renews held leases, beats heartbeats of runs being worked on,
    and (in workers) sweeps runs whose worker died. The beat and the sweep are
    callbacks (:meth:`on_heartbeat`, :meth:`start_sweeping`), set when the process
    is wired up: the keeper holds run ids but never reads or writes a run.

    The leases are renewed by a thread of their own: a beat or a sweep waiting on a slow or
    absent database must not let a slot lapse while its call is still out (a third call
    would then go to an endpoint that allows two)."""

    leases: set[Lease] = field(default_factory=set)
    runs: dict[int, int] = field(default_factory=dict)  # run id -> how many holds
    heartbeat: Heartbeat | None = None
    sweep: Callable[[], object] | None = None  # set in workers only
    lock: threading.Lock = field(default_factory=threading.Lock)
    thread: threading.Thread | None = None  # beats and sweeps
    lease_thread: threading.Thread | None = None  # renews the leases
    last_sweep: float = 0.0

    def ensure_started(self) -> None:
        with self.lock:
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(
                    target=self._loop, args=(self.beat_runs,), name="generation-keeper", daemon=True
                )
                self.thread.start()
            if self.lease_thread is None or not self.lease_thread.is_alive():
                self.lease_thread = threading.Thread(
                    target=self._loop, args=(self.renew_leases,), name="lease-keeper", daemon=True
                )
                self.lease_thread.start()

    def hold(self, lease: Lease) -> None:
        with self.lock:
            self.leases.add(lease)
        self.ensure_started()

    def drop(self, lease: Lease) -> None:
        with self.lock:
            self.leases.discard(lease)

    def beat(self, run_id: int) -> None:
        with self.lock:
            self.runs[run_id] = self.runs.get(run_id, 0) + 1
        self.ensure_started()

    def unbeat(self, run_id: int) -> None:
        with self.lock:
            count = self.runs.get(run_id, 0) - 1
            if count > 0:
                self.runs[run_id] = count
            else:
                self.runs.pop(run_id, None)

    def on_heartbeat(self, *, heartbeat: Heartbeat) -> None:
        """Set how the runs passed to :meth:`beat` are beaten, on every tick."""
        with self.lock:
            self.heartbeat = heartbeat

    def start_sweeping(self, *, sweep: Callable[[], object]) -> None:
        """Call ``sweep`` (which resumes dead runs) every half stale period."""
        with self.lock:
            self.sweep = sweep
        self.ensure_started()

    def tick(self) -> None:
        """One round of both threads' work, in this thread (tests tick by hand)."""
        self.renew_leases()
        self.beat_runs()

    def renew_leases(self) -> None:
        with self.lock:
            leases = list(self.leases)
        try:
            alive = semaphores().renew(leases) if leases else 0
            if alive < len(leases):
                logger.warning("%d lease(s) expired before renewal", len(leases) - alive)
        except Exception:  # the lease store away: the next round tries again
            logger.warning("could not renew %d lease(s)", len(leases), exc_info=True)

    def beat_runs(self) -> None:
        from django.db import connections

        with self.lock:
            runs = list(self.runs)
            heartbeat, sweep = self.heartbeat, self.sweep
        try:
            if runs:
                if heartbeat is None:
                    # A wiring bug, not a transient error: say so on every tick.
                    logger.warning("no heartbeat callback registered; %d run(s) not beaten", len(runs))
                else:
                    heartbeat(run_ids=runs)
            sweep_every = float(settings.GENERATION_STALE_SECONDS) / 2
            if sweep is not None and time.monotonic() - self.last_sweep >= sweep_every:
                self.last_sweep = time.monotonic()
                sweep()
        finally:
            connections.close_all()  # this thread's only: it wakes up rarely, so it holds none

    def _loop(self, work: Callable[[], None]) -> None:
        while True:
            time.sleep(heartbeat_seconds())
            try:
                work()
            except Exception:
                logger.exception("generation keeper round failed")


_keeper = Keeper()


def keeper() -> Keeper:
    return _keeper


def reset_for_tests() -> None:
    """Forget the backend (tests switch REDIS_URL)."""
    global _backend
    with _backend_lock:
        _backend = None

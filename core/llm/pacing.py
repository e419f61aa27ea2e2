"""Pacing per endpoint: requests and tokens per minute, shared by every worker.

A provider key or gateway allows so many requests and tokens a minute; a batch that
sends faster is answered 429 and waits anyway, so the calls are spaced out before they
are sent. Each limit is a GCRA schedule (a "theoretical arrival time" per endpoint and
kind): a request reserves the next slot ``60 / rpm`` seconds after the previous one and
waits until it comes; a finished call pushes the token schedule on by its tokens times
``60 / tpm``, and the next call waits until the schedule has caught up. The schedule
lives where the concurrency leases live (``core.llm.leases``): in Redis (server time, one
atomic script) when ``REDIS_URL`` is set, else in a ``flock``ed file per endpoint (``make
run``: one machine), so all workers share it.

A gateway or provider that says how many requests its window has left
(``x-ratelimit-remaining-requests``) is believed too (:func:`window_observe`): once it says
``PACING_RESERVE_REQUESTS`` or fewer remain, the next request waits for the window's reset
(``x-ratelimit-reset-requests``, else the next minute: LiteLLM's proxy counts per calendar
minute, and refuses the request that would reach its limit). An even spacing alone met 429s
there, each a minute's wait (issue 37).

Nothing here reads the database: the caller passes the endpoint's limits.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings

from core.llm.hints import duration_seconds

if TYPE_CHECKING:
    from core.llm.endpoint import Endpoint

# Advance a schedule and say how long the caller waits: KEYS[1] the schedule,
# ARGV[1] seconds the caller takes from it (0: only ask), ARGV[2] 1 to start at the
# later of now and the schedule (a reservation), 0 to add after the wait (a charge).
_ADVANCE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local wait = tat - now
local take = tonumber(ARGV[1])
if take > 0 then
  local after = tat + take
  redis.call('SET', KEYS[1], tostring(after), 'PX', math.ceil((after - now) * 1000) + 60000)
end
return tostring(wait)
"""
# Hold a schedule until ARGV[1] seconds from now at the least (a window that has run out).
_HOLD = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
local until_ = now + tonumber(ARGV[1])
if tat < until_ then
  redis.call('SET', KEYS[1], tostring(until_), 'PX', math.ceil(tonumber(ARGV[1]) * 1000) + 60000)
end
return 1
"""
# How many requests a window may still allow when the next one waits for its reset: LiteLLM's
# proxy answers "1 remaining" and refuses the next request (it refuses the one that would reach
# its limit).
PACING_RESERVE_REQUESTS = 1
# The longest a server's window reset is believed (hostile pass 26: ``100000h`` held an endpoint
# for 11 years); a provider whose window is longer answers 429 with Retry-After, and is waited for
PACING_MAX_HOLD_SECONDS = 3600.0


class RedisSchedules:
    def __init__(self, url: str, prefix: str, timeout: float | None = None):
        import redis

        self.client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        self.prefix = prefix
        self._advance = self.client.register_script(_ADVANCE)
        self._hold = self.client.register_script(_HOLD)

    def advance(self, key: str, take: float) -> float:
        return float(self._advance(keys=[f"{self.prefix}:llm:pace:{key}"], args=[take]))

    def hold(self, key: str, seconds: float) -> None:
        self._hold(keys=[f"{self.prefix}:llm:pace:{key}"], args=[seconds])


class FileSchedules:
    """One small file per schedule, read and written under ``flock`` (one machine)."""

    def __init__(self, directory: Path):
        self.directory = directory

    def hold(self, key: str, seconds: float) -> None:
        self._update(key, lambda tat, now: max(tat, now + seconds))

    def advance(self, key: str, take: float) -> float:
        wait: list[float] = []

        def advanced(tat: float, now: float) -> float | None:
            tat = max(tat, now)
            wait.append(tat - now)
            return tat + take if take > 0 else None

        self._update(key, advanced)
        return wait[0]

    def _update(self, key: str, change: Callable[[float, float], float | None]) -> None:
        """Read the schedule, and write ``change(tat, now)`` unless it is None, under the file's lock."""
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / (key.replace(":", "-") + ".json")
        with open(path, "a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                handle.seek(0)
                try:
                    tat = float(json.loads(handle.read() or "0"))
                except ValueError:
                    tat = 0.0
                after = change(tat, time.time())
                if after is not None:
                    handle.seek(0)
                    handle.truncate()
                    handle.write(json.dumps(after))
                    handle.flush()
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


@functools.cache
def _schedules(redis_url: str, prefix: str, timeout: float, var_dir: str) -> RedisSchedules | FileSchedules:
    if redis_url:
        return RedisSchedules(redis_url, prefix, timeout)
    return FileSchedules(Path(var_dir) / "locks" / prefix / "pace")


def schedules() -> RedisSchedules | FileSchedules:
    """The store for the current settings (one per configuration and process)."""
    return _schedules(
        settings.REDIS_URL or "",
        settings.REDIS_KEY_PREFIX,
        float(settings.REDIS_TIMEOUT_SECONDS),
        str(settings.VAR_DIR),
    )


def reset_for_tests() -> None:
    _schedules.cache_clear()


def pace_key(endpoint: Endpoint) -> str:
    """Per saved endpoint; an unsaved one (a connection test's copy keeps the pk) by its URL and model."""
    if getattr(endpoint, "pk", None):
        return f"endpoint:{endpoint.pk}"
    digest = hashlib.sha256(f"{endpoint.base_url}|{endpoint.model_name}".encode()).hexdigest()[:16]
    return f"url:{digest}"


def request_wait(endpoint: Endpoint) -> float:
    """Reserve the endpoint's next request slot; seconds to wait before sending (0 unpaced).
    A request also waits for the token schedule (a call that used many tokens holds the next)."""
    wait = 0.0
    rpm = getattr(endpoint, "requests_per_minute", None)
    if rpm:
        wait = schedules().advance(f"{pace_key(endpoint)}:requests", 60.0 / float(rpm))
    tpm = getattr(endpoint, "tokens_per_minute", None)
    if tpm:
        wait = max(wait, schedules().advance(f"{pace_key(endpoint)}:tokens", 0.0))
    return wait


def window_observe(endpoint: Endpoint, headers: Mapping[str, str], *, now: float | None = None) -> float:
    """Believe a server that says its window of requests is (nearly) used up: hold the
    endpoint's request schedule until the window resets. Returns the seconds held (0: none)."""
    remaining = _header_number(headers, "x-ratelimit-remaining-requests")
    if remaining is None or remaining > PACING_RESERVE_REQUESTS:
        return 0.0
    reset = duration_seconds(str(headers.get("x-ratelimit-reset-requests") or ""))
    if reset is None:
        now = time.time() if now is None else now
        reset = 60.0 - now % 60.0  # the next calendar minute, as LiteLLM's proxy counts
    reset = min(reset, PACING_MAX_HOLD_SECONDS) + 0.25  # past the boundary, whatever the clocks' skew
    schedules().hold(f"{pace_key(endpoint)}:requests", reset)
    return reset


def _header_number(headers: Mapping[str, str], name: str) -> float | None:
    try:
        return float(str(headers.get(name)).strip())
    except (TypeError, ValueError):
        return None


def tokens_used(endpoint: Endpoint, tokens: int) -> None:
    """Charge a finished call's tokens to the endpoint's token schedule."""
    tpm = getattr(endpoint, "tokens_per_minute", None)
    if tpm and tokens > 0:
        schedules().advance(f"{pace_key(endpoint)}:tokens", tokens * 60.0 / float(tpm))

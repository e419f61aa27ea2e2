"""Django's Redis cache, degraded to a miss when Redis is away.

The cache only holds what can be recomputed (diversity scores, figures, worker
pings), so a Redis that is down or hangs must cost a recomputation, never a 500.
Reads answer "not cached", writes are dropped; each outage is logged at most once a
minute per process so the logs say why pages got slower."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

_UNREACHABLE = (RedisConnectionError, RedisTimeoutError, OSError)
_WARN_EVERY_SECONDS = 60.0


class ResilientRedisCache(RedisCache):
    _last_warning = 0.0

    def _guarded(self, fallback: Any, call: Callable[..., Any], *args: Any) -> Any:
        """``call(*args)``, or ``fallback`` (logged) when Redis cannot be reached."""
        try:
            return call(*args)
        except _UNREACHABLE as exc:
            now = time.monotonic()
            if now - ResilientRedisCache._last_warning >= _WARN_EVERY_SECONDS:
                ResilientRedisCache._last_warning = now
                logger.warning("cache unreachable, serving without it: %s: %s", type(exc).__name__, exc)
            return fallback

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        return self._guarded(default, super().get, key, default, version)

    def get_many(self, keys: Any, version: int | None = None) -> dict[str, Any]:
        return self._guarded({}, super().get_many, keys, version)

    def has_key(self, key: Any, version: int | None = None) -> bool:
        return self._guarded(False, super().has_key, key, version)

    def set(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> None:
        self._guarded(None, super().set, key, value, timeout, version)

    def add(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        return self._guarded(False, super().add, key, value, timeout, version)

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> list[str]:
        # Django's contract: the keys that were not stored
        return self._guarded(list(data), super().set_many, data, timeout, version)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        return self._guarded(False, super().touch, key, timeout, version)

    def delete(self, key: Any, version: int | None = None) -> bool:
        return self._guarded(False, super().delete, key, version)

    def delete_many(self, keys: Any, version: int | None = None) -> None:
        self._guarded(None, super().delete_many, keys, version)

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        # 0 when Redis is away: a counter (the API's rate limit) that cannot count lets pass
        return int(self._guarded(0, super().incr, key, delta, version))

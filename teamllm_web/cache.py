"""Django's Redis cache, degraded to a miss when Redis is away.

The cache only holds what can be recomputed (diversity scores, figures, worker
pings), so a Redis that is down or hangs must cost a recomputation, never a 500.
Reads answer "not cached", writes are dropped; each outage is logged at most once a
minute per process so the logs say why pages got slower."""

from __future__ import annotations

import logging
import time
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

    def _unreachable(self, exc: BaseException) -> None:
        now = time.monotonic()
        if now - ResilientRedisCache._last_warning >= _WARN_EVERY_SECONDS:
            ResilientRedisCache._last_warning = now
            logger.warning("cache unreachable, serving without it: %s: %s", type(exc).__name__, exc)

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        try:
            return super().get(key, default, version)
        except _UNREACHABLE as exc:
            self._unreachable(exc)
            return default

    def get_many(self, keys: Any, version: int | None = None) -> dict[str, Any]:
        try:
            return super().get_many(keys, version)
        except _UNREACHABLE as exc:
            self._unreachable(exc)
            return {}

    def has_key(self, key: Any, version: int | None = None) -> bool:
        try:
            return super().has_key(key, version)
        except _UNREACHABLE as exc:
            self._unreachable(exc)
            return False

    def set(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> None:
        try:
            super().set(key, value, timeout, version)
        except _UNREACHABLE as exc:
            self._unreachable(exc)

    def add(self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        try:
            return super().add(key, value, timeout, version)
        except _UNREACHABLE as exc:
            self._unreachable(exc)
            return False

    def set_many(self, data: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> list[str]:
        try:
            return super().set_many(data, timeout, version)
        except _UNREACHABLE as exc:
            self._unreachable(exc)
            return list(data)  # Django's contract: the keys that were not stored

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None) -> bool:
        try:
            return super().touch(key, timeout, version)
        except _UNREACHABLE as exc:
            self._unreachable(exc)
            return False

    def delete(self, key: Any, version: int | None = None) -> bool:
        try:
            return super().delete(key, version)
        except _UNREACHABLE as exc:
            self._unreachable(exc)
            return False

    def delete_many(self, keys: Any, version: int | None = None) -> None:
        try:
            super().delete_many(keys, version)
        except _UNREACHABLE as exc:
            self._unreachable(exc)

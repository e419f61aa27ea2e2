"""Django's cache in Redis: django-redis, with a Redis that is down or hangs a miss.

The cache only holds what can be recomputed (diversity scores, figures, worker pings) and counts
that may lapse (the API's rate limit, the autosave throttle), so a Redis that is down or hangs must
cost a recomputation, never a 500: django-redis's ``IGNORE_EXCEPTIONS`` answers reads "not
cached" and drops writes. Its log of each ignored error goes through ``OncePerMinute``, so the logs
say why pages got slower without a traceback per request."""

from __future__ import annotations

import logging
import time
from typing import Any

# the logger django-redis writes ignored errors to (DJANGO_REDIS_LOGGER)
LOGGER = "teamllm_web.cache"


def redis_cache(*, url: str, prefix: str, timeout: float) -> dict[str, Any]:
    """A CACHES entry for the Redis at ``url``, each connect and read bounded by ``timeout``."""
    return {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": url,
        "KEY_PREFIX": prefix,
        "OPTIONS": {
            "SOCKET_CONNECT_TIMEOUT": timeout,
            "SOCKET_TIMEOUT": timeout,
            "IGNORE_EXCEPTIONS": True,
        },
    }


class OncePerMinute(logging.Filter):
    """Lets one record through per minute (per process): an outage is logged, not each request."""

    EVERY_SECONDS = 60.0

    def __init__(self, name: str = "") -> None:
        super().__init__(name)
        self._last = float("-inf")

    def filter(self, record: logging.LogRecord) -> bool:
        now = time.monotonic()
        if now - self._last < self.EVERY_SECONDS:
            return False
        self._last = now
        error = record.exc_info[1] if record.exc_info else None
        cause = (error.__cause__ or error) if error is not None else None
        reason = f"{type(cause).__name__}: {cause}" if cause is not None else record.getMessage()
        record.msg, record.args = "cache unreachable, serving without it: %s", (reason,)
        record.exc_info = record.exc_text = None  # one line, not a traceback per outage
        return True

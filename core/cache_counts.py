"""A count kept in Django's cache for a while: how the API's rate limit counts requests. Its
sliding window reads the previous window's count beside this one's, which django-ratelimit
cannot (it counts the autosave ceiling and the invitation links' failures: ``core.rate_limits``).
Atomic where the cache is (Redis' INCR: parallel requests never take the same place), never an
error: a cache that is away (django-redis ignores its errors) counts nothing, and the caller lets
the request through."""

from __future__ import annotations

from django.core.cache import BaseCache


def cache_count_increment(*, cache: BaseCache, key: str, timeout: int) -> int | None:
    """Add one to ``key`` (made with 0 to live ``timeout`` seconds when missing) and return the
    count after it; 1 when the key expired between the two steps (this is a window's first
    again), None when the cache could not count."""
    cache.add(key, 0, timeout=timeout)
    try:
        count = cache.incr(key)
    except ValueError:  # the key expired (or the add was dropped) in between
        cache.add(key, 1, timeout=timeout)
        return 1
    return int(count) if count is not None else None

"""The cache between tests: each test session (and pytest-xdist process) has its own key prefix."""

from django.core.cache import cache


def cache_clear_own() -> None:
    """Forget this session's cache entries and nothing else: django-redis's ``clear()`` flushes the
    whole Redis database, the broker's queues and the other test processes' keys with it."""
    if hasattr(cache, "delete_pattern"):  # django-redis: the pattern gets the session's prefix
        cache.delete_pattern("*")
    else:
        cache.clear()  # the local-memory cache of a run without Redis is this process's own

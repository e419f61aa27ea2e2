"""The cache between tests: each test session (and pytest-xdist process) has its own key prefix."""

import time
from collections.abc import Callable
from typing import TypeVar

from django.core.cache import cache

T = TypeVar("T")


def cache_clear_own() -> None:
    """Forget this session's cache entries and nothing else: django-redis's ``clear()`` flushes the
    whole Redis database, the broker's queues and the other test processes' keys with it."""
    if hasattr(cache, "delete_pattern"):  # django-redis: the pattern gets the session's prefix
        cache.delete_pattern("*")
    else:
        cache.clear()  # the local-memory cache of a run without Redis is this process's own


def in_one_clock_second(action: Callable[[], T], *, start_by: float = 0.3, attempts: int = 3) -> T:
    """``action()`` started early in a clock second (waiting for the next one when past
    ``start_by``), and again in the next when it ran over: for counts kept per clock second
    (django-ratelimit's windows of one second), which a test must fill within one."""
    for _ in range(attempts):
        if time.time() % 1 > start_by:
            time.sleep(1.01 - time.time() % 1)
        second = int(time.time())
        result = action()
        if int(time.time()) == second:
            return result
    raise AssertionError(f"no {attempts} tries fitted in one clock second")

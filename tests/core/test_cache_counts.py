"""The cache count of the API's rate limit: atomic, a window's first count again when its key
expired in between, nothing counted (and no error) when the cache is away."""

from __future__ import annotations

import threading

from django.core.cache.backends.locmem import LocMemCache
from django_redis.cache import RedisCache

from core.cache_counts import cache_count_increment


def _locmem(name: str) -> LocMemCache:
    return LocMemCache(name, {})


def test_counts_up_from_one_and_keeps_the_timeout():
    cache = _locmem("counts-up")
    assert [cache_count_increment(cache=cache, key="k", timeout=60) for _ in range(3)] == [1, 2, 3]
    assert cache.get("k") == 3


def test_parallel_counts_each_take_their_own_place():
    cache = _locmem("counts-parallel")
    seen: list[int | None] = []
    lock = threading.Lock()

    def count() -> None:
        value = cache_count_increment(cache=cache, key="k", timeout=60)
        with lock:
            seen.append(value)

    threads = [threading.Thread(target=count) for _ in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(seen) == list(range(1, 41))


class _DroppedAdd(LocMemCache):
    """A cache whose key expires between the add and the incr (the add is lost)."""

    def add(self, key, value, timeout=None, version=None):  # noqa: ANN001, ANN201
        return False


def test_a_key_expired_in_between_starts_the_window_again():
    cache = _DroppedAdd("counts-dropped", {})
    assert cache_count_increment(cache=cache, key="k", timeout=60) == 1
    assert cache_count_increment(cache=cache, key="k", timeout=60) == 1  # the add is lost each time


def test_a_cache_that_is_away_counts_nothing_and_raises_nothing():
    # django-redis as production configures it (teamllm_web.cache), pointed at a port nobody serves
    away = RedisCache(
        "redis://127.0.0.1:1/0",
        {"OPTIONS": {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5}},
    )
    assert cache_count_increment(cache=away, key="k", timeout=60) is None

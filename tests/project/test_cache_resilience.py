"""The cache only holds what can be recomputed: a Redis that is down or hangs is a
miss, never a 500 (django-redis's IGNORE_EXCEPTIONS, teamllm_web.cache), logged once a minute."""

import pytest
from django.conf import settings
from django.core.cache import caches
from django.test import override_settings

from core.accounts.roles import RESEARCHER
from teamllm_web.cache import redis_cache
from tests.brokers import RedisServer, free_port, silent_server
from tests.factories import UserFactory


def _cache_at(url: str):
    return {"default": redis_cache(url=url, prefix=f"{settings.REDIS_KEY_PREFIX}-resilience", timeout=0.5)}


@pytest.fixture
def cache_at():
    """Point the default cache at ``url`` for the test, then back (Django rebuilds
    its cache handlers when CACHES changes)."""
    stack = []

    def point(url: str):
        override = override_settings(CACHES=_cache_at(url))
        override.enable()
        stack.append(override)
        return caches["default"]

    yield point
    for override in reversed(stack):
        override.disable()


def test_it_is_a_real_cache_while_redis_answers(cache_at):
    server = RedisServer().start()
    try:
        cache = cache_at(server.url)
        cache.set("k", {"v": 1})
        cache.set_many({"a": 1, "b": 2})
        assert cache.get("k") == {"v": 1} and cache.get_many(["a", "b"]) == {"a": 1, "b": 2}
        server.kill()
        # down now: reads miss, writes are dropped, nothing raises
        assert cache.get("k", "missing") == "missing"
        assert cache.get_many(["a", "b"]) == {}
        cache.set_many({"c": 3})
        cache.set("k", 2)
        assert not cache.add("z", 1) and not cache.delete("k")
        assert cache.incr("a") is None  # a count that cannot count (the API's rate limit lets pass)
    finally:
        server.kill()


def test_a_hanging_redis_is_a_miss_after_the_timeout(cache_at):
    with silent_server() as url:
        cache = cache_at(url)
        assert cache.get("k", "missing") == "missing"
        cache.set("k", 1)
        assert not cache.has_key("k")


@pytest.mark.django_db
def test_the_diversity_figure_page_answers_with_the_cache_down(cache_at, client, demo):
    cache_at(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
    client.force_login(UserFactory(username="res-cache", role=RESEARCHER))
    page = client.get("/research/figures/diversity.svg")
    assert page.status_code == 200 and page["Content-Type"].startswith("image/svg")


def test_an_outage_is_logged_once_a_minute_in_one_line(cache_at, caplog):
    import logging

    from teamllm_web.cache import OncePerMinute

    cache = cache_at(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
    once = OncePerMinute()
    with caplog.at_level(logging.ERROR, logger="teamllm_web.cache"):
        for _ in range(5):
            assert cache.get("k", "missing") == "missing"
    records = [r for r in caplog.records if r.name == "teamllm_web.cache"]
    assert len(records) == 5  # django-redis logs each ignored error ...
    passed = [r for r in records if once.filter(r)]
    assert len(passed) == 1  # ... the filter lets one through a minute, as one line
    assert passed[0].getMessage().startswith("cache unreachable, serving without it: ")
    assert "Error" in passed[0].getMessage() and passed[0].exc_info is None

"""The cache only holds what can be recomputed: a Redis that is down or hangs is a
miss, never a 500 (teamllm_web.cache.ResilientRedisCache)."""

import pytest
from django.conf import settings
from django.core.cache import caches
from django.test import override_settings

from core.accounts.roles import RESEARCHER
from tests.brokers import RedisServer, free_port, silent_server
from tests.factories import UserFactory


def _cache_at(url: str):
    return {
        "default": {
            "BACKEND": "teamllm_web.cache.ResilientRedisCache",
            "LOCATION": url,
            "KEY_PREFIX": f"{settings.REDIS_KEY_PREFIX}-resilience",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }


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
        assert cache.set_many({"c": 3}) == ["c"]
        cache.set("k", 2)
        assert cache.add("z", 1) is False and cache.delete("k") is False
    finally:
        server.kill()


def test_a_hanging_redis_is_a_miss_after_the_timeout(cache_at):
    with silent_server() as url:
        cache = cache_at(url)
        assert cache.get("k", "missing") == "missing"
        cache.set("k", 1)
        assert cache.has_key("k") is False


@pytest.mark.django_db
def test_the_diversity_figure_page_answers_with_the_cache_down(cache_at, client, demo):
    cache_at(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
    client.force_login(UserFactory(username="res-cache", role=RESEARCHER))
    page = client.get("/research/figures/diversity.svg")
    assert page.status_code == 200 and page["Content-Type"].startswith("image/svg")

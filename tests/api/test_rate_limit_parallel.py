"""The API's rate limit holds under parallel requests (issue 36, hostile pass 15: ninja's
``SimpleRateThrottle`` read, changed and wrote back a list of timestamps, so 200 of 400
parallel requests passed a limit of 120). The count is now the cache's atomic increment:
exactly the limit passes however many requests race, refused ones take no place, and the
wait it advises brings the caller back when there is room."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.test import RequestFactory
from django_redis.cache import RedisCache

from api.views.throttles import PersonRateThrottle

# the racing threads each hold their own connection: the users must be committed
pytestmark = pytest.mark.django_db(transaction=True)


def _request(user):
    request = RequestFactory().get("/api/v1/studies")
    request.auth = user
    return request


def _race(throttle: PersonRateThrottle, user, parallel: int) -> list[bool]:
    start = threading.Barrier(parallel)
    passed: list[bool] = []
    lock = threading.Lock()

    def one() -> None:
        start.wait()
        allowed = throttle.allow_request(_request(user))
        with lock:
            passed.append(allowed)

    threads = [threading.Thread(target=one) for _ in range(parallel)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return passed


def test_parallel_requests_never_pass_more_than_the_limit(settings, monkeypatch):
    settings.API_RATE_LIMIT_PER_MINUTE = 12
    user = get_user_model().objects.create_user("racer", password="x")
    throttle = PersonRateThrottle()
    # mid-window, so the whole race falls into one 60-second window
    monkeypatch.setattr(throttle, "clock", lambda: 6_000_030.0)
    assert isinstance(caches["default"], RedisCache)  # the real, shared counter
    passed = _race(throttle, user, parallel=40)
    assert passed.count(True) == 12 and len(passed) == 40
    # refused requests took no place: one more in the same window is refused, not counted
    assert throttle.allow_request(_request(user)) is False
    assert 29 <= throttle.wait() <= 31  # this window is full: until it ends


def test_the_previous_window_slides_out(settings, monkeypatch):
    settings.API_RATE_LIMIT_PER_MINUTE = 10
    user = get_user_model().objects.create_user("slider", password="x")
    throttle = PersonRateThrottle()
    clock = SimpleNamespace(now=6_000_055.0)  # the last 5 s of a window
    monkeypatch.setattr(throttle, "clock", lambda: clock.now)
    assert [throttle.allow_request(_request(user)) for _ in range(11)] == [True] * 10 + [False]
    clock.now = 6_000_066.0  # 6 s into the next: 9 of the 10 still count
    assert throttle.allow_request(_request(user)) is True  # 10 * 0.9 + 1 = 10
    assert throttle.allow_request(_request(user)) is False
    wait = throttle.wait()
    assert wait is not None and 1 <= wait <= 60
    clock.now += wait + 0.01  # the advised wait is enough
    assert throttle.allow_request(_request(user)) is True


def test_a_person_without_a_budget_left_is_not_the_next_persons_problem(settings, monkeypatch):
    settings.API_RATE_LIMIT_PER_MINUTE = 3
    first = get_user_model().objects.create_user("first", password="x")
    second = get_user_model().objects.create_user("second", password="x")
    throttle = PersonRateThrottle()
    monkeypatch.setattr(throttle, "clock", lambda: 6_000_010.0)
    assert _race(throttle, first, parallel=10).count(True) == 3
    assert _race(throttle, second, parallel=10).count(True) == 3

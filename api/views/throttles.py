"""The API's rate limit: django-ninja's throttling, per person. Every token a person holds
and their browser session share one budget of ``API_RATE_LIMIT_PER_MINUTE`` requests in any
60 seconds (a person with 30 tokens gets no more than with one); more answer 429 with
``Retry-After``, audited at most once a minute (``api_refusal_record``).

ninja's ``SimpleRateThrottle`` keeps a list of timestamps that it reads, changes and writes
back: parallel requests each read the same list and all pass (issue 36, pass 15: 200 of 400
parallel requests passed a limit of 120). Here the count is the cache's atomic ``incr`` on
the current 60-second window, weighed with the previous window's count by how much of it
still lies inside the last 60 seconds (a sliding window), so no two requests can take the
same place in the budget. State stays per request: gunicorn's threads share this object."""

from __future__ import annotations

import threading
import time

from django.conf import settings
from django.http import HttpRequest
from ninja.throttling import SimpleRateThrottle

from api.services.tokens import api_refusal_record, person_key
from api.views.auth import caller
from core.cache_counts import cache_count_increment


class PersonRateThrottle(SimpleRateThrottle):
    scope = "person"
    cache_format = "api-throttle:%(scope)s:%(ident)s"

    def __init__(self) -> None:
        super().__init__(rate=self.get_rate())
        self._refusal = threading.local()  # the last refusal's wait, read by ``wait()``

    def get_rate(self) -> str:
        return f"{max(int(settings.API_RATE_LIMIT_PER_MINUTE), 1)}/min"

    def get_cache_key(self, request: HttpRequest) -> str | None:
        """The person behind the token or session; None (not throttled) when the limit is off."""
        if int(settings.API_RATE_LIMIT_PER_MINUTE) <= 0:
            return None
        person = caller(request)
        ident = person_key(person) if person is not None else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def allow_request(self, request: HttpRequest) -> bool:
        key = self.get_cache_key(request)
        if key is None:
            return True
        limit, duration = self.parse_rate(self.get_rate())  # the setting, now
        assert limit is not None and duration is not None
        now = self.clock()
        window = int(now // duration)
        elapsed = now - window * duration
        current = f"{key}:{window}"
        count = cache_count_increment(cache=self.cache, key=current, timeout=2 * duration)
        if count is None:  # the cache is away (django-redis ignores the error): not counted
            return True
        earlier = int(self.cache.get(f"{key}:{window - 1}", 0) or 0)
        earlier_inside = earlier * (1 - elapsed / duration)
        if earlier_inside + count <= limit:
            return True
        self.cache.decr(current)  # a refused request takes no place in the budget
        self._refusal.wait = _seconds_until_room(
            limit=limit, duration=duration, elapsed=elapsed, earlier=earlier, count=count - 1
        )
        api_refusal_record(
            user=caller(request),
            reason=f"rate limit: {limit} requests per minute",
            path=request.path,
            ident=self.get_ident(request) or "",
        )
        return False

    def clock(self) -> float:
        return time.time()

    def wait(self) -> float | None:
        return getattr(self._refusal, "wait", None)


def _seconds_until_room(*, limit: int, duration: int, elapsed: float, earlier: int, count: int) -> float:
    """When one more request fits: once enough of the previous window has slid out, or when
    this window ends if this window's own count already fills the budget."""
    room = limit - 1 - count
    if room < 0 or earlier == 0:
        return max(duration - elapsed, 1.0)
    slide_at = duration * (1 - room / earlier)
    return max(slide_at - elapsed, 1.0)

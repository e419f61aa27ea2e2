"""Counts of requests against a ceiling, kept by django-ratelimit in Django's cache: the
autosave ceiling and the invitation links' failures. One typed door to the library, so the
views read its usage by name. A cache that is away counts nothing and stops nothing
(``RATELIMIT_FAIL_OPEN``): these ceilings guard against floods, never a score or an account.
(The API's rate limit keeps its own sliding window: ``core.cache_counts``.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypedDict, cast

from django.http import HttpRequest
from django_ratelimit.core import get_usage


class RateUsage(TypedDict):
    count: int  # requests counted in this window, this one included when it was counted
    limit: int
    should_limit: bool  # the count is over the limit
    time_left: int  # seconds until this window ends (0 or less: it ends within this second)


def rate_usage(
    request: HttpRequest, *, group: str, key: Callable[[HttpRequest], str] | Literal["ip", "user"],
    limit: int, seconds: int, count: bool,
) -> RateUsage | None:  # fmt: skip
    """The requests of ``group`` under ``key(request)`` in the current window of ``seconds``
    (django-ratelimit's fixed windows: one clock second for 1, else each key's own offset),
    one more when ``count``; None when the cache could not count. ``"user"``: the logged-in
    account; ``"ip"``: the client's address (``RATELIMIT_IP_META_KEY``), an IPv6 one as its /64
    (``RATELIMIT_IPV6_MASK``), which one client may hold whole."""
    usage = get_usage(
        request, group=group, key=key if isinstance(key, str) else (lambda _group, req: key(req)),
        rate=f"{limit}/{max(1, seconds)}s", increment=count,
    )  # fmt: skip
    return cast("RateUsage | None", usage)

"""The API's rate limit: django-ninja's throttling, per person. Every token a person holds
and their browser session share one budget of ``API_RATE_LIMIT_PER_MINUTE`` requests in any
60 seconds (a person with 30 tokens gets no more than with one); more answer 429 with
``Retry-After``, audited at most once a minute (``api_refusal_record``)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from ninja.throttling import SimpleRateThrottle

from api.services.tokens import api_refusal_record, person_key
from api.views.auth import caller


class PersonRateThrottle(SimpleRateThrottle):
    scope = "person"
    cache_format = "api-throttle:%(scope)s:%(ident)s"

    def __init__(self) -> None:
        super().__init__(rate=self.get_rate())

    def get_rate(self) -> str:
        return f"{max(int(settings.API_RATE_LIMIT_PER_MINUTE), 1)}/min"

    def get_cache_key(self, request: HttpRequest) -> str | None:
        """The person behind the token or session; None (not throttled) when the limit is off."""
        if int(settings.API_RATE_LIMIT_PER_MINUTE) <= 0:
            return None
        self.num_requests, self.duration = self.parse_rate(self.get_rate())  # the setting, now
        person = caller(request)
        ident = person_key(person) if person is not None else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def allow_request(self, request: HttpRequest) -> bool:
        if super().allow_request(request):
            return True
        api_refusal_record(
            user=caller(request),
            reason=f"rate limit: {self.num_requests} requests per minute",
            path=request.path,
            ident=self.get_ident(request) or "",
        )
        return False

"""The UI language a browser keeps: Django's language cookie, set as the settings describe it."""

from __future__ import annotations

from django.conf import settings
from django.http.response import HttpResponseBase

LANGUAGE_COOKIE_SECONDS = 365 * 24 * 3600


def language_cookie_set(*, response: HttpResponseBase, language: str) -> None:
    """Remember ``language`` in the browser (the cookie Django's LocaleMiddleware reads)."""
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=LANGUAGE_COOKIE_SECONDS,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,  # type: ignore[arg-type]  # a settings str
    )

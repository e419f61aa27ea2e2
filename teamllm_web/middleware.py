"""Site-wide access rule and the rater's remembered language."""

from __future__ import annotations

from urllib.parse import quote

from django.conf import settings
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import translation

# Anonymous users reach only these (login page, health check, static files, i18n switch).
PUBLIC_PREFIXES = ("/accounts/login/", "/healthz", "/i18n/setlang/", "/" + settings.STATIC_URL.lstrip("/"))


class LoginRequiredEverywhereMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.user.is_authenticated and not request.path.startswith(PUBLIC_PREFIXES):
            # The Django admin's own login page is not offered either: one login for everyone.
            return redirect(f"{reverse('login')}?next={quote(request.path)}")
        return self.get_response(request)


class UserLanguageMiddleware:
    """Activate the language a logged-in user chose last (stored on their profile)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            profile = getattr(user, "rater_profile", None)
            lang = getattr(profile, "language", "") if profile is not None else ""
            if (
                lang
                and lang in dict(settings.LANGUAGES)
                and not request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
            ):
                translation.activate(lang)
                request.LANGUAGE_CODE = lang
        return self.get_response(request)

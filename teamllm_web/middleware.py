"""Site-wide access rule, the request size limit and the rater's remembered language."""

from __future__ import annotations

import logging
from urllib.parse import quote

from django.conf import settings
from django.contrib.auth import SESSION_KEY, logout
from django.core.exceptions import TooManyFieldsSent
from django.http import (
    HttpResponse,
    HttpResponseNotAllowed,
    HttpResponsePermanentRedirect,
    JsonResponse,
    RawPostDataException,
)
from django.shortcuts import redirect, render
from django.template import loader
from django.urls import Resolver404, resolve, reverse
from django.utils import translation

from core.outages import database_busy

from .health import liveness

logger = logging.getLogger(__name__)

LIVENESS_PATHS = ("/healthz", "/healthz/")
# the JSON API: its answers are JSON; /api/tokens/ (the page for its tokens) is a page
API_PREFIX = "/api/v1/"

# Anonymous users reach only these (login page, health checks, static files, i18n switch).
# /status/ checks its own access (admins or the STATUS_TOKEN bearer token; 404 otherwise),
# /metrics its own (the METRICS_TOKEN bearer token).
PUBLIC_PREFIXES = (
    "/accounts/login/",
    "/accounts/invite/",  # set-password links of invitees, who have no password yet
    "/healthz",
    "/status/",
    "/metrics",
    "/i18n/setlang/",
    API_PREFIX,  # token requests have no session: the API answers 401/403 itself
    "/" + settings.STATIC_URL.lstrip("/"),
)


def liveness_response() -> HttpResponse:
    alive = liveness()
    response = HttpResponse(b"ok\n" if alive else b"unavailable\n", status=200 if alive else 503)
    response["Content-Type"] = "text/plain; charset=utf-8"
    response["Cache-Control"] = "no-store"
    return response


class LivenessMiddleware:
    """Answer ``/healthz`` before any other middleware: whatever the Host header
    (orchestrators probe 127.0.0.1, which is not in ALLOWED_HOSTS), without the HTTPS
    redirect, sessions or login. Only the database is checked; the body says ``ok``."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info in LIVENESS_PATHS:
            if request.method not in ("GET", "HEAD"):
                return HttpResponseNotAllowed(["GET", "HEAD"])
            return liveness_response()
        return self.get_response(request)


class QueryRefusalMiddleware:
    """Answer 400 to a URL that no address of the site reads: one whose path, query or headers hold a
    NUL character (``%00``; PostgreSQL refuses it in a text lookup, a 500 otherwise), or whose query
    has more fields than ``DATA_UPLOAD_MAX_NUMBER_FIELDS`` (Django refuses them when a view reads
    the query, and with DEBUG on its error page read it again: a 500). JSON under ``/api/v1/``, a page
    elsewhere."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        query = request.META.get("QUERY_STRING", "")
        message = reason = ""
        if "\x00" in request.path_info or "%00" in query or "\x00" in query:
            message = "The address holds a NUL character (%00); no address of this API has one."
            reason = "nul"
        elif _form_not_utf8(request):
            message = "A form must be sent in UTF-8."
            reason = "charset"
        elif any("\x00" in value for key, value in request.META.items() if key.startswith("HTTP_")):
            # a header with a NUL (gunicorn refuses one; the development server passes it on, and
            # the login's record of the browser, django-axes' AccessLog, cannot be stored in PostgreSQL)
            message = "A header of the request holds a NUL character; no browser sends one."
            reason = "header"
        else:
            try:
                request.GET  # noqa: B018 - parsed here, where a refusal is still a 400
            except TooManyFieldsSent:
                message = "The address has too many query fields."
                reason = "fields"
        if not message:
            return self.get_response(request)
        if request.path_info.startswith(API_PREFIX):
            return JsonResponse({"detail": message}, status=400)
        return render(request, "400.html", {"reason": reason}, status=400)


def _form_not_utf8(request) -> bool:
    """A form body in another charset than UTF-8, which Django refuses to read (its
    ``BadRequest``, raised inside the CSRF check, became a 500; hostile pass 20)."""
    encoding = request.encoding
    return (
        request.method == "POST"
        and request.content_type == "application/x-www-form-urlencoded"
        and encoding is not None
        and encoding.lower() != "utf-8"
    )


# The pages' methods: a page reads on GET and changes on POST (the API under /api/v1/ routes its own).
PAGE_METHODS = ("GET", "HEAD", "POST", "OPTIONS")


class PageMethodsMiddleware:
    """Answer 405 to PUT, DELETE, PATCH or any other method on a page: a view written for GET
    and POST served its page to them (nothing changed, but a 200 says the method worked)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info.startswith(API_PREFIX):
            return self.get_response(request)
        if request.method not in PAGE_METHODS:
            return HttpResponseNotAllowed(PAGE_METHODS)
        if request.method == "POST" and _slash_missing(request.path_info):
            # Django's CommonMiddleware would redirect to the address with its slash by a 301, which a
            # browser follows with a GET (the form is lost), and with DEBUG on it raises (a 500):
            # a 308 sends the same form to the right address
            query = request.META.get("QUERY_STRING", "")
            location = quote(request.path + "/") + (f"?{query}" if query else "")
            return HttpResponsePermanentRedirect(location, preserve_request=True)
        return self.get_response(request)


def _slash_missing(path: str) -> bool:
    """A page's address written without its closing slash (``APPEND_SLASH``)."""
    if not settings.APPEND_SLASH or path.endswith("/"):
        return False
    try:
        resolve(path)
    except Resolver404:
        try:
            resolve(path + "/")
        except Resolver404:
            return False
        return True
    return False


class FormBodyToJsonEndpointMiddleware:
    """Answer 400 to a form (multipart or urlencoded) sent where a JSON body is read: Django has
    read the form already (the CSRF check does), so the body cannot be read again and the view
    raised ``RawPostDataException`` (a 500 and a mail to the admins otherwise)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, RawPostDataException):
            message = "This address takes a JSON body (Content-Type: application/json), not a form."
            return JsonResponse({"detail": message}, status=400)
        return None


# How long a client is asked to wait before sending again a request the busy database refused.
DATABASE_BUSY_RETRY_SECONDS = 5


def database_busy_response(request) -> HttpResponse:
    """503 with Retry-After: JSON under /api/v1/ and to a JSON body (the scoring page's saves), a
    page elsewhere. Rendered without the request's context: its processors would ask the busy
    database again."""
    if request.path_info.startswith(API_PREFIX) or request.content_type == "application/json":
        message = "The database is busy; nothing was changed. Send the request again in a few seconds."
        response: HttpResponse = JsonResponse({"detail": message}, status=503)
    else:
        response = HttpResponse(loader.render_to_string("503.html"), status=503)
    response["Retry-After"] = str(DATABASE_BUSY_RETRY_SECONDS)
    return response


class DatabaseBusyMiddleware:
    """A view that met a busy or unreachable database (SQLite locked by a worker's write, a
    PostgreSQL restart or lock timeout) answers 503 with Retry-After, not a 500: the request
    can be sent again as it was (its transaction was rolled back). Errors outside views are
    answered the same way by ``teamllm_web.views.server_error``."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not database_busy(exception):
            return None
        logger.warning("database busy on %s %s: %s", request.method, request.path, exception)
        return database_busy_response(request)


class RequestSizeLimitMiddleware:
    """Answer 413 to a request whose declared body is larger than ``REQUEST_MAX_BYTES`` before
    anything reads it: Django's own limit (``DATA_UPLOAD_MAX_MEMORY_SIZE``) leaves uploaded
    files out, which it streams to disk whatever their size. JSON under ``/api/v1/`` and to a
    JSON body (the scoring page's saves), a page elsewhere; the upload forms' own limits say the
    same for smaller files."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        declared = request.META.get("CONTENT_LENGTH") or ""
        limit = int(settings.REQUEST_MAX_BYTES)
        if declared.isascii() and declared.isdigit() and int(declared) > limit:
            if request.path_info.startswith(API_PREFIX) or request.content_type == "application/json":
                message = f"the request body is too large ({declared} bytes; the limit is {limit} bytes)"
                return JsonResponse({"detail": message}, status=413)
            return render(request, "413.html", {"size": int(declared), "limit": limit}, status=413)
        return self.get_response(request)


class LoginRequiredEverywhereMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.user.is_authenticated and request.session.get(SESSION_KEY) is not None:
            # a session whose account may no longer log in (deactivated, deleted, a demo account
            # outside demo mode) ends for good, not only until the account is active again
            logout(request)
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

"""Who calls the API: a personal access token (``Authorization: Bearer tlm_…``) or the
browser session of an admin or researcher (the docs page's "try it out"). Raters are
refused either way: nothing the API serves is blind."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from ninja.security import HttpBearer, SessionAuth

from api.models import ApiToken
from api.services.tokens import TokenRefused, token_authenticate
from core.accounts.roles import is_admin_or_researcher, researcher_required

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


class TokenAuth(HttpBearer):
    def authenticate(self, request: HttpRequest, token: str) -> ApiToken:
        return token_authenticate(
            plain=token,
            method=request.method or "",
            path=request.path,
            write=request.method not in SAFE_METHODS,
        )

    def __call__(self, request: HttpRequest):
        header = request.headers.get("Authorization")
        if header and header.split(" ")[0].lower() != "bearer":
            raise TokenRefused(401, "malformed Authorization header: expected 'Bearer tlm_...'")
        return super().__call__(request)


class StaffSessionAuth(SessionAuth):
    """Django's session (with its CSRF check on writes), for admins and researchers only.
    Without a logged-in session it does not apply at all: an anonymous call, a POST included,
    answers 401 "authentication required" rather than a CSRF refusal."""

    def __call__(self, request: HttpRequest):
        if not request.user.is_authenticated:
            return None
        return super().__call__(request)

    def authenticate(self, request: HttpRequest, key: str | None):
        user = super().authenticate(request, key)
        if user is None:
            return None
        if not is_admin_or_researcher(user):
            raise TokenRefused(403, "the API is for admins and researchers; raters have no access")
        return user


def caller(request: HttpRequest):
    """The user behind the request (the token's owner, or the session's user)."""
    auth = request.auth  # type: ignore[attr-defined]
    return auth.user if isinstance(auth, ApiToken) else auth


def token_study_id(request: HttpRequest) -> int | None:
    """The one study a token is limited to, if any (a session sees every study)."""
    auth = request.auth  # type: ignore[attr-defined]
    return auth.study_id if isinstance(auth, ApiToken) else None


def docs_access(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """The OpenAPI schema and the docs page: with ``Authorization: Bearer tlm_...`` a live
    token (read scope is enough) opens them, a bad one answers 401/403 JSON; without the
    header, the logged-in admin's or researcher's session (else the login page)."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if request.headers.get("Authorization"):
            try:
                if TokenAuth()(request) is None:
                    raise TokenRefused(401, "authentication required: send 'Authorization: Bearer tlm_...'")
            except TokenRefused as exc:
                return JsonResponse({"detail": exc.message}, status=exc.status)
            return view(request, *args, **kwargs)
        if request.path.endswith("openapi.json") and not request.user.is_authenticated:
            return JsonResponse({"detail": UNAUTHENTICATED}, status=401)  # a client, not a browser
        return researcher_required(view)(request, *args, **kwargs)

    return wrapped


# what every endpoint answers a caller without credentials (the API's AuthenticationError handler)
UNAUTHENTICATED = (
    "authentication required: send 'Authorization: Bearer tlm_...' (a token made on /api/tokens/)"
)


@csrf_exempt  # it changes nothing and answers JSON to any method, as the endpoints do
def api_unknown(request: HttpRequest, rest: str = "") -> HttpResponse:
    """An address under /api/v1/ that is no endpoint: JSON as the endpoints answer, and 401 to an
    anonymous caller as a real endpoint does, so that nobody learns the routes by their 404s."""
    if not request.user.is_authenticated and not request.headers.get("Authorization"):
        return JsonResponse({"detail": UNAUTHENTICATED}, status=401)
    return JsonResponse({"detail": "Not Found"}, status=404)

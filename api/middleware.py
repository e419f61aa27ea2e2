"""A method an API endpoint does not take: django-ninja answers 405 with the text "Method not
allowed", before it looks at who calls. The API answers JSON to everything, and 401 to an
anonymous caller whatever the method (as on addresses that are no endpoint), so that nobody
learns the routes from the answers (issue 36, hostile pass 15)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.utils.cache import add_never_cache_headers

from api.views.auth import UNAUTHENTICATED

_API = "/api/v1/"


def api_method_not_allowed_as_json(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[[HttpRequest], HttpResponse]:
    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        if not (isinstance(response, HttpResponseNotAllowed) and request.path.startswith(_API)):
            return response
        if not request.user.is_authenticated and not request.headers.get("Authorization"):
            return JsonResponse({"detail": UNAUTHENTICATED}, status=401)
        allowed = response["Allow"]
        answer = JsonResponse(
            {"detail": f"Method {request.method} not allowed here; use {allowed}."}, status=405
        )
        answer["Allow"] = allowed
        return answer

    return middleware


def api_never_cached(
    get_response: Callable[[HttpRequest], HttpResponse],
) -> Callable[[HttpRequest], HttpResponse]:
    """Every answer of the API is a study's data for one caller at one moment: no cache keeps
    it (pages and downloads say so already; the API's JSON said nothing, hostile pass 24)."""

    def middleware(request: HttpRequest) -> HttpResponse:
        response = get_response(request)
        if request.path.startswith(_API):
            add_never_cache_headers(response)
        return response

    return middleware

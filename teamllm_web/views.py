"""Site-level views: the role landing redirect, health checks, language choice."""

from __future__ import annotations

import hmac
import sys

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import check_for_language
from django.utils.translation import gettext as _
from django.views import defaults
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from core.accounts.roles import is_admin, is_rater, is_researcher, user_roles_conflict
from core.i18n import language_cookie_set
from core.outages import database_busy
from scoring.models import RaterProfile

from .health import status_report
from .metrics import CONTENT_TYPE, metrics_exposition
from .middleware import API_PREFIX, database_busy_response, liveness_response
from .status_labels import status_label, status_value


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: an error raised outside a view (a middleware loading the session while the
    database restarts) that says the database is busy answers 503 with Retry-After, as views
    do (``DatabaseBusyMiddleware``); any other error, Django's own 500 page."""
    error = sys.exc_info()[1]
    if error is not None and database_busy(error):
        return database_busy_response(request)
    return defaults.server_error(request)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler400: the 400 page, without Django's ``requires_csrf_token``, whose CSRF check reads
    the form again: a form that cannot be read (a body in another charset than UTF-8) raised again
    there, and the 400 became a 500 (hostile pass 20). JSON under ``/api/v1/``."""
    if request.path_info.startswith(API_PREFIX):
        return JsonResponse({"detail": "Bad request."}, status=400)
    return render(request, "400.html", status=400)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: a form sent from a page that is out of date (a logout or a login in another
    tab since, a page open for days) gets a page of the site's own, in its language, that says what
    to do; Django's bare page had neither (hostile pass 25). A JSON body (the scoring page's saves,
    which read the status) gets JSON. Nothing was changed either way."""
    if request.content_type == "application/json":
        message = (
            "The page is out of date (its security token no longer matches); reload it. Nothing was changed."
        )
        return JsonResponse({"detail": message}, status=403)
    return render(request, "403_csrf.html", status=403)


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """Each role lands on its own page. An account that is a rater and also an admin or
    researcher (from before the rule) is only a rater: double-blind scoring."""
    user = request.user
    if user_roles_conflict(user):
        messages.warning(
            request,
            _(
                "This account is a rater and also an admin or researcher. While it is a rater, "
                "the pages that show who scored what are closed to it (double-blind scoring): "
                "ask an admin for a second account for the other role."
            ),
        )
    if is_admin(user):
        return redirect("scoring:admin_home")
    if is_researcher(user):
        return redirect("research:research_home")
    if is_rater(user):
        return redirect("scoring:queue")
    return redirect("no_role")


@login_required
def no_role(request: HttpRequest) -> HttpResponse:
    from django.shortcuts import render

    return render(request, "no_role.html")


@require_GET
@never_cache
def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness; normally answered by LivenessMiddleware before reaching here."""
    return liveness_response()


def _bearer_token_ok(request: HttpRequest, expected: str | None = None) -> bool:
    expected = settings.STATUS_TOKEN if expected is None else expected
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if not expected or scheme.lower() != "bearer" or not token.strip():
        return False
    return hmac.compare_digest(token.strip().encode(), expected.encode())


@require_GET
@never_cache
@login_required
def csrf_token(request: HttpRequest) -> JsonResponse:
    """A fresh CSRF token for a page that outlived its session: after logging in again
    in another tab, the page's pending saves go through without a reload."""
    return JsonResponse({"token": get_token(request)})


@require_GET
@never_cache
def status(request: HttpRequest) -> HttpResponse:
    """Readiness and operations status: 200 when ready, 503 when not. Admins (session) or
    ``Authorization: Bearer $STATUS_TOKEN``; 403 for other users, 404 for anonymous
    requests. JSON for monitoring; a page for an admin's browser (it asks for HTML),
    unless ``?format=json``."""
    bearer = _bearer_token_ok(request)
    if not (bearer or is_admin(request.user)):
        if request.user.is_authenticated:
            return JsonResponse({"error": "forbidden"}, status=403)
        raise Http404
    ready, report = status_report()
    code = 200 if ready else 503
    wants_page = "text/html" in request.headers.get("Accept", "") and request.GET.get("format") != "json"
    if bearer or not wants_page:
        return JsonResponse(report, status=code)
    parts = [
        {
            "name": name,
            "label": status_label(name),
            "ok": part.get("ok"),
            "facts": [(status_label(k), status_value(v)) for k, v in part.items() if k != "ok"],
        }
        for name, part in report.items()
        if isinstance(part, dict)
    ]
    context = {"ready": ready, "problems": [status_label(p) for p in report["problems"]], "parts": parts}
    return render(request, "status.html", context, status=code)


@require_GET
@never_cache
def metrics(request: HttpRequest) -> HttpResponse:
    """Prometheus metrics, for ``Authorization: Bearer $METRICS_TOKEN`` only: 404 while no
    token is configured, 401 without a bearer token, 403 with a wrong one."""
    expected = settings.METRICS_TOKEN
    if not expected:
        message = _("Metrics are off: set METRICS_TOKEN to turn them on.")
        return HttpResponse(message, status=404, content_type="text/plain; charset=utf-8")
    scheme, _sep, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        response = HttpResponse(
            _("Send the metrics token: Authorization: Bearer <METRICS_TOKEN>."),
            status=401,
            content_type="text/plain; charset=utf-8",
        )
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    if not _bearer_token_ok(request, expected):
        message = _("This token does not open the metrics.")
        return HttpResponse(message, status=403, content_type="text/plain; charset=utf-8")
    return HttpResponse(metrics_exposition(), content_type=CONTENT_TYPE)


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """Switch the UI language; remembered in a cookie and on the user's profile."""
    lang = request.POST.get("language", "")
    nxt = request.POST.get("next") or "/"
    if not url_has_allowed_host_and_scheme(
        nxt, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        nxt = "/"
    response = redirect(nxt)
    if lang and check_for_language(lang) and lang in dict(settings.LANGUAGES):
        language_cookie_set(response=response, language=lang)
        if request.user.is_authenticated:
            RaterProfile.objects.update_or_create(user=request.user, defaults={"language": lang})
    return response

"""Who may log in: login throttling (django-axes) and demo accounts only in demo mode.

- ``ThrottledLoginBackend`` (first in AUTHENTICATION_BACKENDS) refuses, for
  ``AXES_COOLOFF_TIME`` and before any password is checked, a username that failed
  ``AXES_FAILURE_LIMIT`` times from any addresses, and a client address from which
  ``AXES_ADDRESS_FAILURE_LIMIT`` logins failed for any usernames (``LoginFailuresHandler``);
  the lockout page says so. The address is the connection's, or the one ``X-Forwarded-For``
  gives only when the connection comes from one of ``TRUSTED_PROXIES`` (``client_ip``). An admin unlocks it in the Django
  admin (Axes > Access attempts: delete the attempt) or with ``manage.py axes_reset``.
- ``AccountBackend`` is Django's ModelBackend except that, unless ``DEMO_MODE`` is on, it
  refuses the demo accounts (members of the "Demo" group, which ``seed_demo`` creates)
  and any login with the published demo password; it also ends their sessions.
"""

from __future__ import annotations

import ipaddress
import logging

from axes.backends import AxesStandaloneBackend
from axes.handlers.database import AxesDatabaseHandler
from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.forms import AuthenticationForm
from django.db.models import Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _

from core.accounts.roles import is_demo_user
from demo.services import DEMO_PASSWORD

logger = logging.getLogger(__name__)
# the proxies this process has warned of (once each, at most _UNNAMED_PROXIES_MAX)
_UNNAMED_PROXIES: set[str] = set()
_UNNAMED_PROXIES_MAX = 16


class ThrottledLoginBackend(AxesStandaloneBackend):
    """django-axes' lockout check. Logins made without a request (``Client.login`` in
    tests, code) have no client address to throttle and are passed to the next backend."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def demo_login_refused(username: str | None, password: str | None) -> bool:
    """True when demo mode is off and this is a demo account or the demo password."""
    if settings.DEMO_MODE:
        return False
    if password and password == DEMO_PASSWORD:
        return True
    user = get_user_model().objects.filter(username=username or "").first()
    return user is not None and is_demo_user(user)


class AccountBackend(ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        if not settings.DEMO_MODE and password == DEMO_PASSWORD:
            return None  # the published password opens nothing outside demo mode
        return super().authenticate(request, username=username, password=password, **kwargs)

    def get_user(self, user_id):
        # Every request of a session: the user with the rater profile that
        # UserLanguageMiddleware reads, in one query (its roles come from the cache).
        user_model = get_user_model()
        try:
            user = user_model._default_manager.select_related("rater_profile").get(pk=user_id)
        except user_model.DoesNotExist:
            return None
        return user if self.user_can_authenticate(user) else None

    def user_can_authenticate(self, user) -> bool:
        # also called for every request of a logged-in session (get_user)
        return super().user_can_authenticate(user) and (settings.DEMO_MODE or not is_demo_user(user))


class LoginForm(AuthenticationForm):
    """The login form, with a clear message for demo accounts outside demo mode."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": _("Your username and password didn't match. Please try again."),
        "demo_disabled": _(
            "Demo accounts are disabled: this server is not in demo mode. Log in with your own account."
        ),
    }

    def clean(self):
        # Django sets the username's max_length after building the field, so nothing checks it:
        # a longer name reached authenticate(), and django-axes' record of the failure, a 255-
        # character column, answered 500 on PostgreSQL (hostile pass 16). No account has such a
        # name: the answer of any failed login, without looking anything up.
        username = self.cleaned_data.get("username") or ""
        user_model = get_user_model()
        field = user_model._meta.get_field(user_model.USERNAME_FIELD)
        if len(username) > (getattr(field, "max_length", None) or 150):
            raise self.get_invalid_login_error()
        if demo_login_refused(self.cleaned_data.get("username"), self.cleaned_data.get("password")):
            raise forms.ValidationError(self.error_messages["demo_disabled"], code="demo_disabled")
        return super().clean()


class LoginFailuresHandler(AxesDatabaseHandler):
    """django-axes' database handler with a limit of its own for each lockout parameter:
    ``AXES_FAILURE_LIMIT`` failures of one username (from any addresses) and
    ``AXES_ADDRESS_FAILURE_LIMIT`` failures from one address (for any usernames).

    axes compares one count with one limit; this count is the largest of the parameters'
    failures each scaled to ``AXES_FAILURE_LIMIT``, so it reaches that limit exactly when
    one parameter reaches its own. A successful login clears only its username's failures:
    an attacker who sprays passwords from an address cannot clear that address's count by
    logging in to an account of their own."""

    def get_failures(self, request, credentials: dict | None = None) -> int:
        base = settings.AXES_FAILURE_LIMIT
        limits = {"username": base, "ip_address": settings.AXES_ADDRESS_FAILURE_LIMIT}
        parameters = settings.AXES_LOCKOUT_PARAMETERS
        counts = [
            attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0
            for attempts in self.get_user_attempts(request, credentials)
        ]
        scaled = [
            count * base // max(1, limits.get(parameter, base)) if isinstance(parameter, str) else count
            for parameter, count in zip(parameters, counts, strict=True)
        ]
        return max(scaled, default=0)

    def reset_user_attempts(self, request, credentials: dict | None = None) -> int:
        from axes.helpers import get_client_username
        from axes.models import AccessAttempt

        username = get_client_username(request, credentials)
        if not username:
            return 0
        count, _ = AccessAttempt.objects.filter(username=username).delete()
        return count


def _trusted_proxy(address: str | None) -> bool:
    if not address:
        return False
    try:
        peer = ipaddress.ip_address(address)
    except ValueError:
        return False
    for entry in settings.TRUSTED_PROXIES:
        try:
            if peer in ipaddress.ip_network(entry.strip(), strict=False):
                return True
        except ValueError:
            continue
    return False


def client_ip_for_counts(request: HttpRequest) -> str:
    """``client_ip`` for django-ratelimit's ``ip`` key (``RATELIMIT_IP_META_KEY``), which counts
    an IPv6 address by its /64: an IPv4 address written as IPv6 (``::ffff:a.b.c.d``, from a
    server bound to ``[::]``) as itself, never as the /64 that holds every IPv4 client; a zone
    id dropped. A request without an address (a Unix socket with no proxy in front) counts as
    0.0.0.0, all such requests together."""
    try:
        address = ipaddress.ip_address((client_ip(request) or "").split("%", 1)[0])
    except ValueError:
        return "0.0.0.0"  # noqa: S104 - an address to count by, never one to bind
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


def client_ip(request: HttpRequest) -> str | None:
    """The client address django-axes counts failures for: REMOTE_ADDR, or, when the
    connection comes from one of ``TRUSTED_PROXIES`` and ``TRUSTED_PROXY_COUNT`` reverse
    proxies are in front, the address the outermost one saw in ``X-Forwarded-For``. Any
    other peer's ``X-Forwarded-For`` is ignored: a client cannot choose its address."""
    peer = request.META.get("REMOTE_ADDR")
    count = settings.TRUSTED_PROXY_COUNT
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if forwarded and (count == 0 or not _trusted_proxy(peer)):
        _warn_of_an_unnamed_proxy(peer)
    if count > 0 and forwarded and _trusted_proxy(peer):
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if len(hops) >= count:
            try:
                return str(ipaddress.ip_address(hops[-count]))
            except ValueError:
                return peer
    return peer


def _warn_of_an_unnamed_proxy(peer: str | None) -> None:
    """Log once per process that an address of the host or its networks forwards requests while
    the settings do not count through it (not in TRUSTED_PROXIES, or TRUSTED_PROXY_COUNT 0): every
    client behind it then counts as that one address, and 30 failed logins from anyone lock
    everyone out (hostile pass 24: nothing said so). Not for a global address (a client that sends
    the header itself is not worth a line); at most 16 addresses a process."""
    try:
        address = ipaddress.ip_address(peer or "")
    except ValueError:
        return
    if address.is_global or str(address) in _UNNAMED_PROXIES or len(_UNNAMED_PROXIES) > _UNNAMED_PROXIES_MAX:
        return
    _UNNAMED_PROXIES.add(str(address))
    if len(_UNNAMED_PROXIES) > _UNNAMED_PROXIES_MAX:
        logger.warning("more local addresses send X-Forwarded-For; no more are logged by this process")
        return
    logger.warning(
        "requests from %s carry X-Forwarded-For, but the settings do not count through it (TRUSTED_PROXIES "
        "does not name it, or TRUSTED_PROXY_COUNT is 0): every client behind that proxy counts as %s for "
        "login lockouts and link throttling. If it is your reverse proxy, name it in TRUSTED_PROXIES and set "
        "TRUSTED_PROXY_COUNT.",
        address,
        address,
    )


def lockout_response(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """The page a locked-out login gets (429), in the site's layout and language."""
    minutes = max(1, round(settings.AXES_COOLOFF_TIME.total_seconds() / 60))
    context = {
        "minutes": minutes,
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "address_limit": settings.AXES_ADDRESS_FAILURE_LIMIT,
    }
    return render(request, "registration/locked_out.html", context, status=429)

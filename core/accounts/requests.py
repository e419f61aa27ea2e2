"""The request of a view behind a login check, for the type checker."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.http import HttpRequest
    from django_htmx.middleware import HtmxDetails

    class AuthenticatedHttpRequest(HttpRequest):
        """A request whose user is signed in (the view's role or login check let it through):
        ``request.user`` is a ``User``, never the anonymous one (django-stubs' advice), and
        ``request.htmx`` is django-htmx's (its middleware sets it on every request)."""

        user: User
        htmx: HtmxDetails

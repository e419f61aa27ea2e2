"""Every address that takes an id answers 4xx to an id beyond the database's range, on SQLite
(where the driver raised OverflowError: a 500) and PostgreSQL alike (issue 36, pass 5, B7: the
turn's messages looked the run up through a foreign key). Walks the URLconf: a new view is
covered when it is added."""

import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

HUGE = str(2**63)
PARAMETER = re.compile(r"<(?:(\w+):)?(\w+)>")


def _routes(patterns, prefix=""):
    for entry in patterns:
        route = getattr(entry.pattern, "_route", None)
        if route is None:  # a regex pattern (the admin's, the API's schema): not ours to walk
            continue
        if isinstance(entry, URLResolver):
            yield from _routes(entry.url_patterns, prefix + route)
        elif isinstance(entry, URLPattern):
            yield prefix + route


def _with_huge_ids(route):
    """One path per id of the route: that id huge, the others 1 (a huge id beside another
    out-of-range one never reaches the database: both must be tried alone)."""
    ints = [m for m in PARAMETER.finditer(route) if (m.group(1) or "str") in ("int", "id")]
    for huge in ints:

        def fill(match, huge=huge):
            if (match.group(1) or "str") not in ("int", "id"):
                return "x"
            return HUGE if match.start() == huge.start() else "1"

        yield "/" + PARAMETER.sub(fill, route)


ROUTES = sorted({path for r in _routes(get_resolver().url_patterns) for path in _with_huge_ids(r)})


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("username", ["admin", "researcher", "rater1"])
def test_no_address_answers_a_huge_id_with_a_server_error(demo, username):
    assert len(ROUTES) > 30  # the walk found the app's addresses
    client = Client(raise_request_exception=False)
    client.login(username=username, password="demo-pass-2026")
    failures = []
    for path in ROUTES:
        for method in (client.get, client.post):
            status = method(path).status_code
            if status >= 500:
                failures.append(f"{method.__name__.upper()} {path}: {status}")
    assert failures == []

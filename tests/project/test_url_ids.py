"""Ids in URLs (hostile pass 16, F3): ``<int:...>`` let a 30-digit id reach SQLite's driver, an
OverflowError and a 500. Every URL takes its ids with ``<id:...>`` (at most 18 digits): a longer
one matches no URL, a 404 on either database."""

from __future__ import annotations

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.urls.converters import IntConverter
from django.urls.exceptions import Resolver404

from core.url_ids import IdConverter


def _patterns(resolver: URLResolver, prefix: str = ""):
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _patterns(entry, route)
        elif isinstance(entry, URLPattern):
            yield route, entry.pattern


def test_no_url_takes_an_id_with_the_unbounded_int_converter():
    converters = {
        route: type(converter)
        for route, pattern in _patterns(get_resolver())
        for converter in getattr(pattern, "converters", {}).values()
    }
    assert IdConverter in converters.values()  # the product's ids
    assert [route for route, kind in converters.items() if kind is IntConverter] == []


@pytest.mark.parametrize(
    "path",
    [
        "/manage/responses/111111111111111111111111111111/release/",
        "/manage/responses/9223372036854775808/withdraw/",
        "/manage/responses/9223372036854775808/redact/",
    ],
)
def test_an_id_beyond_the_databases_range_matches_no_url(path):
    with pytest.raises(Resolver404):
        resolve(path)
    assert resolve(path.replace(path.split("/")[3], "123456789012345678")).kwargs == {
        "response_id": 123456789012345678
    }


@pytest.mark.django_db
def test_an_admin_posting_a_huge_id_gets_a_404(client, demo):
    from django.contrib.auth import get_user_model

    client.force_login(get_user_model().objects.get(username="admin"))
    answer = client.post("/manage/responses/111111111111111111111111111111/release/", {"back": ""})
    assert answer.status_code == 404

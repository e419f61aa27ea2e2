"""Issue 40: /manage/endpoints/ and /manage/conditions/ for a lab with many of them: searched,
filtered (endpoints: active or not) and paged, the pages keeping the filters; odd input says
so and filters nothing."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django.db.models import Q

from generation import selectors as generation_selectors
from studies.models import Condition, ModelEndpoint, Strategy
from tests.factories import ConditionFactory, ModelEndpointFactory
from tests.listing import assert_two_a_page, listed, table_of

pytestmark = pytest.mark.django_db
ENDPOINTS, CONDITIONS = "/manage/endpoints/", "/manage/conditions/"
ENDPOINT_ROW = r'href="/manage/endpoints/(\d+)/"'
CONDITION_ROW = r'href="/manage/conditions/(\d+)/"><code>'


@pytest.fixture
def admin_client(client, demo, monkeypatch):
    """Endpoints and conditions besides the demo's, two of each to a page."""
    made = [
        ("gpu-box", "80", "https://gpu.lab.example/v1", "llama-3-70b", True),
        ("path-only", "81", "https://api.example.com/gpu/v1", "qwen-2", True),
        ("old-gpt", "82", "https://api.openai.com/v1", "gpt-4o", False),
        ("Vision", "83", "http://10.0.0.5:8000/v1", "GPU-vision", False),
        ("bare", "84", "", "", True),
    ]
    for name, number, base_url, model_name, active in made:
        ModelEndpointFactory(
            name=name, model_number=number, base_url=base_url, model_name=model_name, is_active=active
        )
    for letter, name in [("TA", "Team alpha"), ("TB", "Beta team"), ("X", "Solo"), ("Y", "Debate")]:
        ConditionFactory(letter=letter, name=name, strategy=Strategy.SINGLE)
    monkeypatch.setattr(generation_selectors, "ENDPOINTS_PER_PAGE", 2)
    monkeypatch.setattr(generation_selectors, "CONDITIONS_PER_PAGE", 2)
    assert client.login(username="admin", password="demo-pass-2026")
    return client


def _endpoints(search: str = "", active: bool | None = None) -> list[str]:
    """The endpoints the list should show, worked out from the rows themselves."""
    rows = ModelEndpoint.objects.order_by("model_number")
    if active is not None:
        rows = rows.filter(is_active=active)
    s = search.lower()
    return [
        str(e.pk)
        for e in rows
        if s in e.name.lower() or s in e.model_name.lower() or s in urlsplit(e.base_url).netloc.lower()
    ]


def _conditions(search: str = "") -> list[str]:
    rows = Condition.objects.filter(Q(letter__icontains=search) | Q(name__icontains=search))
    return [str(pk) for pk in rows.order_by("letter").values_list("pk", flat=True)]


def test_every_endpoint_is_on_one_of_the_pages(admin_client):
    assert ModelEndpoint.objects.count() > 2
    assert_two_a_page(
        admin_client, ENDPOINTS, _endpoints(), table_id="endpoints", row=ENDPOINT_ROW, noun="endpoints"
    )


@pytest.mark.parametrize(
    "query, search, active",
    [
        ({"q": "GPU"}, "gpu", None),  # the host and the model, not the path of the base URL
        ({"q": "10.0.0.5:8000"}, "10.0.0.5:8000", None),
        ({"q": "openai"}, "openai", None),
        ({"active": "no"}, "", False),
        ({"active": "yes"}, "", True),
        ({"q": "gpu", "active": "no"}, "gpu", False),
    ],
)
def test_the_endpoint_search_and_state_narrow_the_list(admin_client, query, search, active):
    expected = _endpoints(search, active)
    assert expected and expected != _endpoints()
    assert listed(admin_client, ENDPOINTS, query, table_id="endpoints", row=ENDPOINT_ROW) == expected


def test_the_host_is_searched_not_the_path(admin_client):
    found = listed(admin_client, ENDPOINTS, {"q": "gpu"}, table_id="endpoints", row=ENDPOINT_ROW)
    names = set(ModelEndpoint.objects.filter(pk__in=found).values_list("name", flat=True))
    assert {"gpu-box", "Vision"} <= names and "path-only" not in names
    none = admin_client.get(ENDPOINTS, {"q": "no such model"}).content.decode()
    assert re.findall(ENDPOINT_ROW, table_of(none, "endpoints")) == [] and "No endpoint matches." in none


def test_every_condition_is_on_one_of_the_pages_and_the_search_narrows_them(admin_client):
    assert Condition.objects.count() > 2
    every = _conditions()
    assert_two_a_page(
        admin_client, CONDITIONS, every, table_id="conditions", row=CONDITION_ROW, noun="conditions"
    )
    for search in ("t", "TEAM", "y"):
        expected = _conditions(search)
        assert expected and expected != _conditions()
        query = {"q": search}
        assert listed(admin_client, CONDITIONS, query, table_id="conditions", row=CONDITION_ROW) == expected
    page = admin_client.get(CONDITIONS, {"q": "t"}).content.decode()
    assert 'href="?q=t&amp;page=2" rel="next"' in page and 'value="t"' in page
    none = admin_client.get(CONDITIONS, {"q": "zz"}).content.decode()
    assert re.findall(CONDITION_ROW, table_of(none, "conditions")) == [] and "No condition matches." in none


@pytest.mark.parametrize(
    "url, table_id, row, query, refused",
    [
        (ENDPOINTS, "endpoints", ENDPOINT_ROW, {"active": "maybe"}, True),
        (ENDPOINTS, "endpoints", ENDPOINT_ROW, {"q": "x" * 500}, True),
        (ENDPOINTS, "endpoints", ENDPOINT_ROW, {"page": "-1"}, False),
        (ENDPOINTS, "endpoints", ENDPOINT_ROW, {"page": "9" * 40, "active": "<b>"}, True),
        (CONDITIONS, "conditions", CONDITION_ROW, {"q": "x" * 500}, True),
        (CONDITIONS, "conditions", CONDITION_ROW, {"page": "two"}, False),
        (CONDITIONS, "conditions", CONDITION_ROW, {"page": "9" * 40}, False),
    ],
)
def test_odd_input_is_said_not_failed(admin_client, url, table_id, row, query, refused):
    before = list(ModelEndpoint.objects.values()), list(Condition.objects.values())
    reply = admin_client.get(url, query)
    assert reply.status_code == 200
    body = reply.content.decode()
    everything = _endpoints() if url == ENDPOINTS else _conditions()
    shown = re.findall(row, table_of(body, table_id))
    assert shown and set(shown) <= set(everything)
    assert (f"({len(everything)} " in body) and ('class="error"' in body) == refused
    assert (list(ModelEndpoint.objects.values()), list(Condition.objects.values())) == before


@pytest.mark.parametrize("url", [ENDPOINTS, CONDITIONS])
def test_raters_and_strangers_do_not_get_the_lists(client, demo, url):
    assert client.get(url, {"q": "gpu"}).status_code == 302  # to the login page
    assert client.login(username="rater1", password="demo-pass-2026")
    assert client.get(url, {"q": "gpu", "page": "2"}).status_code == 403

"""Issue 40: /manage/studies/ for a lab with many studies: searched by name (any case) and
paged, the pages keeping the search; odd input says so and filters nothing."""

from __future__ import annotations

import re

import pytest

from studies import selectors as study_selectors
from studies.models import Study
from tests.factories import StudyFactory
from tests.listing import assert_two_a_page, listed, table_of

pytestmark = pytest.mark.django_db
URL = "/manage/studies/"
ROW = r'href="/manage/studies/(\d+)/"'


@pytest.fixture
def many_studies(client, demo, monkeypatch):
    """Seven studies besides the demo's, three of them "Ocean", two to a page."""
    for name in ["Ocean A", "ocean b", "Deep OCEAN", "Forest", "Desert", "City", "Mountain"]:
        StudyFactory(name=name)
    monkeypatch.setattr(study_selectors, "STUDIES_PER_PAGE", 2)
    assert client.login(username="admin", password="demo-pass-2026")
    return client


def _expected(**lookup) -> list[str]:
    return [
        str(pk) for pk in Study.objects.filter(**lookup).order_by("name", "pk").values_list("pk", flat=True)
    ]


def test_every_study_is_on_one_of_the_pages(many_studies):
    assert Study.objects.count() > 2
    assert_two_a_page(many_studies, URL, _expected(), table_id="studies", row=ROW, noun="studies")


def test_the_search_narrows_the_list_and_the_pages_keep_it(many_studies):
    found = listed(many_studies, URL, {"q": "oCeAn"}, table_id="studies", row=ROW)
    assert found == _expected(name__icontains="ocean") and len(found) == 3
    page = many_studies.get(URL, {"q": "oCeAn"}).content.decode()
    assert 'href="?q=oCeAn&amp;page=2" rel="next"' in page and "(3 studies)" in page
    assert 'value="oCeAn"' in page and "Clear the filters" in page
    none = many_studies.get(URL, {"q": "no such study"}).content.decode()
    assert re.findall(ROW, table_of(none, "studies")) == [] and "No study matches." in none


@pytest.mark.parametrize(
    "query",
    [{"q": "x" * 500}, {"page": "-1"}, {"page": "9" * 40}, {"page": "two"}],
)
def test_odd_input_is_said_not_failed(many_studies, query):
    before = list(Study.objects.values())
    reply = many_studies.get(URL, query)
    assert reply.status_code == 200
    body = reply.content.decode()
    shown = re.findall(ROW, table_of(body, "studies"))
    assert shown and set(shown) <= set(_expected())  # a page of every study: nothing filtered
    if "q" in query:
        assert 'class="error"' in body and f"({Study.objects.count()} studies)" in body
    assert list(Study.objects.values()) == before


def test_a_nul_in_the_search_is_a_bad_request(many_studies):
    assert many_studies.get(URL, {"q": "a\x00"}).status_code == 400


def test_raters_and_strangers_do_not_get_the_list(client, demo):
    assert client.get(URL, {"q": "x"}).status_code == 302  # to the login page
    assert client.login(username="rater1", password="demo-pass-2026")
    assert client.get(URL, {"q": "x", "page": "2"}).status_code == 403

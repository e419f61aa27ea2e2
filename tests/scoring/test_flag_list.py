"""Issue 40: /manage/flags/ for a lab with thousands of responses: the flags filtered by study,
scenario code and status (open by default), a page at a time, the pages keeping the filters;
dismissing or withdrawing returns to the same filtered page; odd input says so, filters
nothing and changes nothing."""

from __future__ import annotations

import re

import pytest

from scoring.models import ResponseFlag
from scoring.selectors import flags as flag_selectors
from studies.models import Response, Study
from tests.factories import ScenarioFactory, StudyFactory, make_response, rater
from tests.listing import assert_two_a_page, listed, table_of

pytestmark = pytest.mark.django_db
URL = "/manage/flags/"
ROW = r'data-flag="(\d+)"'
RESOLUTIONS = {"open": "", "dismissed": "dismissed", "withdrawn": "withdrawn"}


@pytest.fixture
def flags(client, demo, monkeypatch):
    """Eleven flags over two studies and three scenarios, two to a page."""
    other = StudyFactory(name="Other lab")
    xq7 = make_response(study=other, scenario=ScenarioFactory(study=other, code="XQ7"))
    fs = make_response(study=other, scenario=ScenarioFactory(study=other, code="FS1201"))
    demo_response = Response.objects.get(research_id="A05_FS10")
    reporter = rater("reporter", "H21")
    plan = [
        (demo_response, ["", "", "dismissed"]),
        (xq7, ["", "", "withdrawn", "dismissed"]),
        (fs, ["", "", "", "dismissed"]),
    ]
    for response, resolutions in plan:
        for n, resolution in enumerate(resolutions):
            ResponseFlag.objects.create(
                response=response, rater=reporter, note=f"note {n}", resolution=resolution
            )
    monkeypatch.setattr(flag_selectors, "FLAGS_PER_PAGE", 2)
    assert client.login(username="admin", password="demo-pass-2026")
    return client


def _expected(study: Study | None = None, scenario: str = "", status: str = "open") -> list[str]:
    rows = ResponseFlag.objects.all()
    if study is not None:
        rows = rows.filter(response__study=study)
    if scenario:
        rows = rows.filter(response__scenario__code__icontains=scenario)
    if status in RESOLUTIONS:
        rows = rows.filter(resolution=RESOLUTIONS[status])
    return [str(pk) for pk in rows.order_by("-created_at", "-id").values_list("pk", flat=True)]


def _other() -> Study:
    return Study.objects.get(name="Other lab")


def test_the_open_flags_are_listed_by_default_a_page_at_a_time(flags):
    expected = _expected()
    assert len(expected) == 7 and len(_expected(status="all")) == 11
    assert_two_a_page(flags, URL, expected, table_id="flags", row=ROW, noun="flags")


@pytest.mark.parametrize(
    "query, study, scenario, status",
    [
        ({"study": "other"}, "other", "", "open"),
        ({"scenario": "xq"}, None, "xq", "open"),
        ({"scenario": "FS1"}, None, "FS1", "open"),
        ({"status": "dismissed"}, None, "", "dismissed"),
        ({"status": "withdrawn"}, None, "", "withdrawn"),
        ({"status": "all"}, None, "", "all"),
        ({"study": "other", "scenario": "fs", "status": "all"}, "other", "fs", "all"),
        ({"study": "demo", "status": "dismissed"}, "demo", "", "dismissed"),
    ],
)
def test_each_filter_narrows_the_list(flags, demo, query, study, scenario, status):
    chosen = {"other": _other(), "demo": demo.study, None: None}[study]
    if study is not None:
        query = {**query, "study": str(chosen.pk)}
    expected = _expected(chosen, scenario, status)
    baseline = _expected() if query == {"status": "all"} else _expected(status="all")  # what it narrows
    assert expected and expected != baseline
    assert listed(flags, URL, query, table_id="flags", row=ROW) == expected


def test_dismissing_and_withdrawing_return_to_the_same_filtered_page(flags):
    here = f"study={_other().pk}&status=all&page=2"
    page = flags.get(f"{URL}?{here}").content.decode()
    shown = re.findall(ROW, table_of(page, "flags"))
    assert shown == _expected(_other(), status="all")[2:4]
    open_here = [pk for pk in shown if ResponseFlag.objects.get(pk=pk).resolution == ""]
    assert open_here and f'action="?{here.replace("&", "&amp;")}"' in page
    reply = flags.post(f"{URL}?{here}", {"flag": open_here[0], "action": "dismiss", "note": ""})
    assert reply.status_code == 302 and reply["Location"] == f"{URL}?{here}"
    assert ResponseFlag.objects.get(pk=open_here[0]).resolution == "dismissed"
    target = ResponseFlag.objects.filter(response__study=_other(), resolution="").first()
    reply = flags.post(f"{URL}?{here}", {"flag": target.pk, "action": "withdraw", "note": "cut off"})
    assert reply.status_code == 302 and reply["Location"] == f"{URL}?{here}"
    target.refresh_from_db()
    assert target.resolution == "withdrawn" and target.response.status == "withdrawn"
    # an unfiltered page comes back to the plain list
    last = ResponseFlag.objects.filter(resolution="").first()
    reply = flags.post(URL, {"flag": last.pk, "action": "dismiss", "note": ""})
    assert reply["Location"] == URL


@pytest.mark.parametrize(
    "post",
    [
        {"flag": "9" * 30, "action": "dismiss"},
        {"flag": "x", "action": "dismiss"},
        {"flag": "1", "action": "burn"},
    ],
)
def test_a_bad_action_is_said_and_changes_nothing(flags, post):
    before = list(ResponseFlag.objects.values())
    reply = flags.post(f"{URL}?status=all&page=2", post)
    assert reply.status_code == 200 and "Choose what to do with the flag." in reply.content.decode()
    assert re.findall(ROW, table_of(reply.content.decode(), "flags")) == _expected(status="all")[2:4]
    assert list(ResponseFlag.objects.values()) == before


@pytest.mark.parametrize(
    "query, refused, default_list",
    [
        ({"study": "9" * 30}, True, True),
        ({"study": "x"}, True, True),
        ({"study": "99999999"}, True, True),
        ({"status": "<b>"}, True, True),
        ({"status": "all", "study": "²"}, True, False),
        ({"scenario": "x" * 500}, True, True),
        ({"page": "-1"}, False, True),
        ({"page": "9" * 40}, False, True),
        ({"page": "two"}, False, True),
    ],
)
def test_odd_input_is_said_not_failed(flags, query, refused, default_list):
    before = list(ResponseFlag.objects.values())
    reply = flags.get(URL, query)
    assert reply.status_code == 200
    body = reply.content.decode()
    assert ('class="error"' in body) == refused
    everything = _expected() if default_list else _expected(status="all")
    assert f"({len(everything)} flags)" in body
    shown = re.findall(ROW, table_of(body, "flags"))
    assert shown and set(shown) <= set(everything)
    assert list(ResponseFlag.objects.values()) == before


def test_raters_and_strangers_neither_see_nor_resolve_flags(client, flags):
    client.logout()
    before = list(ResponseFlag.objects.values())
    flag = ResponseFlag.objects.filter(resolution="").first()
    assert client.get(URL, {"status": "all"}).status_code == 302  # to the login page
    assert client.post(f"{URL}?status=all", {"flag": flag.pk, "action": "dismiss"}).status_code == 302
    assert client.login(username="rater1", password="demo-pass-2026")
    assert client.get(URL, {"status": "all", "page": "2"}).status_code == 403
    assert client.post(f"{URL}?status=all", {"flag": flag.pk, "action": "dismiss"}).status_code == 403
    assert list(ResponseFlag.objects.values()) == before

"""Issue 40: the workload board and the assignments page at a study's full size: the scenario
groups a page at a time, filtered by scenario, condition, rater and progress; every number
counted by the database and equal to a direct count of the sheets."""

from __future__ import annotations

import re

import pytest

from scoring.models import Assignment, ScoringGroup, SheetStatus
from scoring.selectors import workload as workload_module
from scoring.selectors.workload import DONE, OPEN, WorkloadFilters, workload_board
from studies.models import Condition, Scenario
from tests.factories import rater
from tests.scoring.test_assignments_page import _more_responses

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, demo):
    client.login(username="admin", password="demo-pass-2026")
    return client


@pytest.fixture
def two_groups(demo, admin_client):
    """The demo's FS10 A group (rater1 + rater2) and a B group (r3 + r4) with two responses."""
    fs10 = Scenario.objects.get(code="FS10")
    _more_responses(demo.study, fs10, "B", ["31", "32"])
    r3, r4 = rater("r3", "H13"), rater("r4", "H14")
    reply = admin_client.post(
        "/manage/assignments/",
        {"study": demo.study.pk, "scenario": fs10.pk, "conditions": [Condition.objects.get(letter="B").pk],
         "rater_a": r3.pk, "rater_b": r4.pk},
    )  # fmt: skip
    assert reply.status_code == 302
    return ScoringGroup.objects.get(condition__letter="A"), ScoringGroup.objects.get(condition__letter="B")


def _direct(group: ScoringGroup) -> dict:
    sheets = Assignment.objects.filter(group=group, archived_at__isnull=True)
    return {
        "assigned": sheets.count(),
        "submitted": sheets.filter(sheet__status=SheetStatus.SUBMITTED).count(),
    }


def test_the_numbers_are_the_sheets_counted_directly(demo, two_groups):
    board = workload_board(study=demo.study)
    assert [row["group"].pk for row in board.groups] == [g.pk for g in two_groups]
    for row in board.groups:
        direct = _direct(row["group"])
        assert (row["assigned"], row["submitted"]) == (direct["assigned"], direct["submitted"])
        assert row["not_started"] + row["draft"] + row["submitted"] == row["assigned"]
    for entry in board.raters:
        mine = Assignment.objects.filter(rater__username=entry["username"], archived_at__isnull=True).exclude(
            role="training"
        )
        assert entry["assigned"] == mine.count()
        assert entry["submitted"] == mine.filter(sheet__status=SheetStatus.SUBMITTED).count()


def test_filters_choose_the_groups_and_raters(demo, two_groups):
    group_a, group_b = two_groups

    def shown(**f):
        return [r["group"].pk for r in workload_board(study=demo.study, filters=WorkloadFilters(**f)).groups]

    assert shown(condition=group_b.condition) == [group_b.pk]
    assert shown(rater="r3") == [group_b.pk]
    assert shown(scenario="fs1") == [group_a.pk, group_b.pk]
    assert shown(scenario="FS99") == []
    assert set(shown(state=OPEN)) | set(shown(state=DONE)) == {group_a.pk, group_b.pk}
    assert not set(shown(state=OPEN)) & set(shown(state=DONE))
    assert shown(state=OPEN) == [g.pk for g in two_groups if _direct(g)["submitted"] < _direct(g)["assigned"]]
    raters = workload_board(study=demo.study, filters=WorkloadFilters(rater="r4")).raters
    assert [r["username"] for r in raters] == ["r4"]


def test_the_pages_keep_the_filters(admin_client, demo, two_groups, monkeypatch):
    monkeypatch.setattr(workload_module, "GROUPS_PER_PAGE", 1)
    first = admin_client.get("/manage/workload/", {"study": demo.study.pk, "scenario": "FS"}).content.decode()
    assert "Page 1 of 2 (2 groups)" in first
    assert f'href="?study={demo.study.pk}&amp;scenario=FS&amp;page=2"' in first
    second = admin_client.get("/manage/workload/", {"study": demo.study.pk, "scenario": "FS", "page": "2"})
    assert "Page 2 of 2" in second.content.decode()
    page = admin_client.get(
        "/manage/assignments/", {"condition": two_groups[1].condition.pk}
    ).content.decode()
    table = page.split('id="groups"', 1)[1]
    assert "r3 + r4" in table and "rater1 + rater2" not in table


@pytest.mark.parametrize(
    "query",
    [{"condition": "9" * 30}, {"study": "x"}, {"state": "<b>"}, {"page": "9" * 40}, {"rater": "r" * 500}],
)
def test_odd_filters_are_said_not_failed(admin_client, two_groups, query):
    for url in ("/manage/workload/", "/manage/assignments/"):
        reply = admin_client.get(url, query)
        assert reply.status_code == 200
        body = reply.content.decode()
        if "page" not in query and "rater" not in query:
            assert re.search(r'class="error"', body)


def test_the_workbook_list_is_searched_and_paged(admin_client, demo, two_groups, monkeypatch):
    from scoring.views import workbooks as workbook_views
    from scoring.workbooks.selectors import workbook_units_get

    units = workbook_units_get()
    monkeypatch.setattr(workbook_views, "WORKBOOKS_PER_PAGE", 1)
    first = admin_client.get("/manage/workbooks/").content.decode()
    assert f"Page 1 of {len(units)} ({len(units)} workbooks)" in first
    found = admin_client.get("/manage/workbooks/", {"q": "h13"}).content.decode()  # r3's rater ID
    rows = found.split('id="workbooks"', 1)[1].split("</table>", 1)[0]
    assert [u.filename for u in units if "H13" in u.filename][0] in rows
    assert [u.filename for u in units if "H14" in u.filename][0] not in rows
    assert "No workbook matches." in admin_client.get("/manage/workbooks/", {"q": "zz-none"}).content.decode()
    assert admin_client.get("/manage/workbooks/", {"page": "9" * 40, "q": "x" * 500}).status_code == 200

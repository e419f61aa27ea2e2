"""Issue 40: the admin's workbook list is paged by the database. Its pages put together are the
whole list, in one order whatever the page size; a workbook's file name is the same on every list, whatever the
study filter; a file name searched for finds its workbook."""

from __future__ import annotations

import pytest

from scoring.workbooks.selectors import workbook_units_get, workbook_units_page
from studies.models import Strategy
from tests.factories import (
    ConditionFactory,
    ModelEndpointFactory,
    ScenarioFactory,
    StudyFactory,
    make_response,
    rater,
    scoring_group_assigned,
)

pytestmark = pytest.mark.django_db


def _group(study, scenario, letter, rater_a, rater_b, n=2):
    condition = ConditionFactory(letter=letter, name=f"Condition {letter}", strategy=Strategy.TEAMLLM)
    responses = [
        make_response(study=study, scenario=scenario, condition=condition, model=ModelEndpointFactory())
        for _ in range(n)
    ]
    return scoring_group_assigned(responses=responses, rater_a=rater_a, rater_b=rater_b)


@pytest.fixture
def two_studies():
    """H01 has FS10 three times: under conditions A and B in the first study, A in the second;
    four more raters share the rest, one of them known only by a username with a dot."""
    first, second = StudyFactory(name="First"), StudyFactory(name="Second")
    fs10_first = ScenarioFactory(study=first, code="FS10")
    fs10_second = ScenarioFactory(study=second, code="FS10")
    fs11 = ScenarioFactory(study=first, code="FS11")
    h01, h02, h03, h04 = (rater(f"h0{n}", f"H0{n}") for n in range(1, 5))
    plain = rater("ann.lee")
    _group(first, fs10_first, "A", h01, h02)
    _group(first, fs10_first, "B", h01, h03)
    _group(second, fs10_second, "A", h01, h04)
    _group(first, fs11, "A", h02, plain)
    _group(first, fs11, "B", h03, h04)
    return first, second


def _paged(*, per_page: int, **filters) -> list:
    page = workbook_units_page(per_page=per_page, page=1, **filters)
    units = list(page.object_list)
    while page.has_next():
        page = workbook_units_page(per_page=per_page, page=page.next_page_number(), **filters)
        units += page.object_list
    return units


@pytest.mark.parametrize("per_page", [1, 2, 3, 100])
def test_the_pages_put_together_are_the_whole_list(two_studies, per_page):
    first, _second = two_studies
    whole = workbook_units_page(per_page=100).object_list
    assert _paged(per_page=per_page) == whole
    assert sorted(whole, key=str) == sorted(workbook_units_get(), key=str)
    assert len(whole) == 10
    in_first = workbook_units_page(per_page=100, study=first).object_list
    assert _paged(per_page=per_page, study=first) == in_first
    assert sorted(in_first, key=str) == sorted(workbook_units_get(study=first), key=str)
    assert workbook_units_page(per_page=per_page, study=first).paginator.count == 8


def test_a_workbook_has_one_name_whatever_the_list(two_studies):
    first, second = two_studies
    h01 = rater("h01", "H01")
    own = {u.group_id: u.filename for u in workbook_units_get(rater=h01)}
    assert sorted(own.values()) == ["H01_FS10.xlsx", "H01_FS10_2.xlsx", "H01_FS10_3.xlsx"]
    for study in (first, second, None):
        listed = {u.group_id: u.filename for u in _paged(per_page=2, study=study) if u.rater_id == h01.pk}
        assert listed == {group_id: own[group_id] for group_id in listed}
    assert {u.filename for u in workbook_units_get()} >= {"ann_lee_FS11.xlsx", "H02_FS11.xlsx"}


@pytest.mark.parametrize(
    ("search", "found"),
    [
        ("h01", {"H01_FS10.xlsx", "H01_FS10_2.xlsx", "H01_FS10_3.xlsx"}),
        ("H01_FS10_2.XLSX", {"H01_FS10.xlsx", "H01_FS10_2.xlsx", "H01_FS10_3.xlsx"}),
        ("03_fs11", {"H03_FS11.xlsx"}),
        ("ann.lee", {"ann_lee_FS11.xlsx"}),
        ("FS11", {"H02_FS11.xlsx", "ann_lee_FS11.xlsx", "H03_FS11.xlsx", "H04_FS11.xlsx"}),
        ("zz-none", set()),
    ],
)
def test_a_search_finds_by_rater_scenario_or_file_name(two_studies, search, found):
    page = workbook_units_page(per_page=100, search=search)
    assert {u.filename for u in page.object_list} == found
    assert page.paginator.count == len(found)

"""The item-level long table reads its sheets in order, then their columns a few at a time (10,
doubling to 200): across the chunks' bounds every sheet comes once, in the table's order, and the
progress counts each sheet."""

from __future__ import annotations

from itertools import islice

import pytest

from research.selectors.long_tables import FIRST_CHUNK, item_rows_iter
from scoring.services.sheets import sheet_open
from tests.factories import assign, rater, scoring_group

pytestmark = pytest.mark.django_db

LEAD = 8  # study, scenario, condition, model, research_id, rater, role, sheet_status


def test_every_sheet_comes_once_in_order_across_growing_chunks():
    n = FIRST_CHUNK * 3 + 5  # past the first two chunks (10, 20) into the third
    group, responses = scoring_group(n_responses=(n + 1) // 2)
    first, second = rater("chunk-h1", code="H01"), rater("chunk-h2", code="H02")
    for response in responses:
        for user, role in ((first, "primary"), (second, "secondary")):
            sheet_open(assignment=assign(user, response, role=role), actor=user)
    told: list[int] = []

    rows = list(item_rows_iter(study=group.study, on_sheet=told.append))

    sheets = [row[4:LEAD] for row in rows]
    in_order = list(dict.fromkeys(sheets))  # each sheet's first row, in the table's order
    expected = sorted((r.research_id, code, role, "draft") for r in responses for code, role in
                      (("H01", "primary"), ("H02", "secondary")))  # fmt: skip
    assert in_order == expected
    # each sheet's rows stand together: no sheet comes back after another one started
    assert [key for index, key in enumerate(sheets) if index == 0 or sheets[index - 1] != key] == in_order
    assert told == [10, 30, len(expected)]


def test_a_page_from_any_offset_is_the_same_slice_of_the_whole_table():
    """The sheets wholly before the offset are counted from their rubric, not read: the page is
    the table's own rows, at a sheet's bound, inside a sheet, at the end and past it."""
    group, responses = scoring_group(n_responses=FIRST_CHUNK + 3)
    first = rater("offset-h1", code="H01")
    for response in responses:
        sheet_open(assignment=assign(first, response), actor=first)
    whole = list(item_rows_iter(study=group.study))
    per_sheet = len(whole) // len(responses)
    assert per_sheet * len(responses) == len(whole)  # every sheet of a rubric has its rows
    for offset in (
        0,
        1,
        per_sheet - 1,
        per_sheet,
        per_sheet * 11 + 7,
        len(whole) - 3,
        len(whole),
        len(whole) + 50,
    ):
        assert (
            list(islice(item_rows_iter(study=group.study, offset=offset), 40)) == whole[offset : offset + 40]
        )

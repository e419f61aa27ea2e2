"""The Step-5 grid check's places and details, stored in English by the import, are shown
in the page's language (they were English in the Chinese interface)."""

import pytest
from django.utils import translation

from scoring.views.sheet_texts import grid_error_text

STORED = [
    ("Criterion 4", True),
    ("Solution 2", True),
    ("tied scores: 5", False),
    ("1 missing score(s)", False),
    ("not a permutation of 1..5", False),
    ("4 of 5 solutions scored", False),
    ("total 12 but scores add to 11", False),
]


@pytest.mark.parametrize(("text", "where"), STORED)
def test_grid_errors_are_translated_and_keep_their_numbers(text, where):
    with translation.override("en"):
        assert grid_error_text(text, where=where) == text
    with translation.override("zh-hans"):
        shown = grid_error_text(text, where=where)
    assert not any(
        word in shown for word in ("Criterion", "Solution", "tied", "missing", "permutation", "total")
    )
    assert [d for d in text if d.isdigit()] == [d for d in shown if d.isdigit()]


def test_an_unknown_text_is_shown_as_stored():
    with translation.override("zh-hans"):
        assert grid_error_text("something else 3", where=False) == "something else 3"

"""Numbers on the research page: no trailing zeros after the point, and a whole number keeps its own
(a mean of 1,000 tokens or a Bradley-Terry score of 1,650 printed with no decimals)."""

import pytest

from research.results import fmt


@pytest.mark.parametrize(
    ("value", "digits", "shown"),
    [
        (1650.2, 0, "1650"),
        (1000.0, 0, "1000"),
        (100.0, 1, "100"),
        (2.50, 2, "2.5"),
        (-0.0001, 2, "0"),
        (None, 2, ""),
    ],
)
def test_numbers_are_printed_as_the_paper_prints_them(value, digits, shown):
    assert fmt(value, digits) == shown

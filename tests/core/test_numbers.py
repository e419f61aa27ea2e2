"""Settings read as typed: 0.900 -> 0.9, 4.00 -> 4, and 10 stays 10 (not 1E+1)."""

from decimal import Decimal

import pytest

from core.numbers import plain_number


@pytest.mark.parametrize(
    ("value", "shown"),
    [(Decimal("0.900"), "0.9"), (Decimal("4.00"), "4"), (Decimal("10"), "10"), (Decimal("10.50"), "10.5"),
     (Decimal("-0.000"), "0"), (0.75, "0.75"), (None, ""), ("n/a", "n/a")],
)  # fmt: skip
def test_plain_number(value, shown):
    assert plain_number(value) == shown

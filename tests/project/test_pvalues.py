"""p-values on the pages: four decimals, never a bare 0 for a tiny p."""

import pytest

from core.templatetags.pvalues import pvalue


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (1.2e-12, "< 0.0001"),
        (0.0, "< 0.0001"),
        (0.00012, "0.0001"),
        (0.0123456, "0.0123"),
        (1.0, "1.0000"),
        (None, "—"),
        (float("nan"), "—"),
        ("", "—"),
    ],
)
def test_a_p_value_is_shown_as_a_reader_expects(value, shown):
    assert pvalue(value) == shown

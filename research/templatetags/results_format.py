"""Numbers as the paper prints them (up to two decimals, no trailing zeros)."""

from django import template
from django.utils.translation import gettext_lazy as _

from research.results import fmt

register = template.Library()


@register.filter
def num(value, digits: int = 2) -> str:
    try:
        return fmt(None if value is None or value == "" else float(value), int(digits))
    except (TypeError, ValueError):
        return ""


# research.significance is pure: its notes are English codes, said in the reader's language here
TEST_NOTES = {
    "no paired scenarios": _("no paired scenarios"),
    "all differences are zero": _("all differences are zero"),
}


@register.filter
def test_note(value: str) -> str:
    return str(TEST_NOTES.get(value, value))

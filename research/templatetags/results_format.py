"""Numbers as the paper prints them (up to two decimals, no trailing zeros)."""

from django import template

from research.results import fmt

register = template.Library()


@register.filter
def num(value, digits: int = 2) -> str:
    try:
        return fmt(None if value is None or value == "" else float(value), int(digits))
    except (TypeError, ValueError):
        return ""

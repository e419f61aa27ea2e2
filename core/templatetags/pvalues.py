"""p-values as a reader expects them: four decimals, and "< 0.0001" rather than a bare 0."""

from typing import Any

from django import template

register = template.Library()

SMALLEST = 0.0001


@register.filter
def pvalue(value: Any) -> str:
    try:
        p = float(value)
    except (TypeError, ValueError):
        return "—"
    if p != p:  # NaN: no test was possible
        return "—"
    return f"< {SMALLEST:.4f}" if p < SMALLEST else f"{p:.4f}"

"""Numbers as the paper prints them (up to two decimals, no trailing zeros), and the results'
labels in the reader's language (``research.labels``) as filters."""

from django import template

from research import labels
from research.results import fmt

register = template.Library()


@register.filter
def num(value, digits: int = 2) -> str:
    try:
        return fmt(None if value is None or value == "" else float(value), int(digits))
    except (TypeError, ValueError):
        return ""


register.filter("test_note", labels.test_note)
register.filter("column_label", labels.column_label)
register.filter("step_label", labels.step_label)
register.filter("metric_label", labels.metric_label)

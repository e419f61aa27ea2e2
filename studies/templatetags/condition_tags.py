"""A condition's name in the reader's language where the product gave it."""

from django import template

from studies.condition_labels import condition_label as _condition_label

register = template.Library()


@register.filter
def condition_label(name: str) -> str:
    return _condition_label(name)

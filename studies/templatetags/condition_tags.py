"""A condition's name and a study's description in the reader's language where the product gave them."""

from django import template

from studies.condition_labels import condition_label as _condition_label
from studies.condition_labels import study_description_label

register = template.Library()


@register.filter
def condition_label(name: str) -> str:
    return _condition_label(name)


@register.filter
def study_description(description: str) -> str:
    return study_description_label(description)

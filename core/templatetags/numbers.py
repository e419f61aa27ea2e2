"""``plain``: a number as the person typed it (``core.numbers.plain_number``)."""

from django import template

from core.numbers import plain_number

register = template.Library()
register.filter("plain", plain_number)

"""The scale of the reliability figure (a forest plot in a table column, inline SVG: the
Content-Security-Policy allows no inline style): a coefficient's x on an axis from AXIS_LOW to 1,
drawn AXIS_WIDTH units wide. Values beyond the axis sit at its edge."""

from django import template

register = template.Library()

AXIS_LOW, AXIS_HIGH, AXIS_WIDTH = -0.5, 1.0, 150


def _place(value: object) -> float | None:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    if number != number:  # NaN
        return None
    return (min(max(number, AXIS_LOW), AXIS_HIGH) - AXIS_LOW) / (AXIS_HIGH - AXIS_LOW) * AXIS_WIDTH


@register.filter
def axis_x(value: object) -> str:
    """The x of a coefficient, e.g. ``75.0`` for 0.25 (empty when there is no value)."""
    place = _place(value)
    return "" if place is None else f"{place:.1f}"

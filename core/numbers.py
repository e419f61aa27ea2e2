"""Numbers as the person typed them: a setting saved as 0.900 or 4.00 reads 0.9 and 4, on pages
and in exports alike."""

from decimal import Decimal, InvalidOperation


def plain_number(value: object) -> str:
    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError):
        return "" if value is None else str(value)
    if not number.is_finite():
        return str(value)
    text = format(number.normalize(), "f")
    return "0" if text == "-0" else text

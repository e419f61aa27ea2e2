"""The ``<id:...>`` path converter: a database id in a URL, at most 18 digits.

Django's ``<int:...>`` takes any run of digits; an id beyond 2**63 then reaches the database
driver, which on SQLite raises OverflowError: a 500 (hostile pass 16). Here such a path matches
no URL: a 404, as for any id that names nothing."""

from __future__ import annotations


class IdConverter:
    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)

"""Ids taken from query strings and form fields, without a 500 on anything else.

``"²".isdigit()`` is true but ``int("²")`` fails, and ``pk="abc"`` raises ValueError in
the ORM: pages that read an id from the request use ``id_param``.
"""

from __future__ import annotations

import re

_ID = re.compile(r"[0-9]{1,18}")


def id_param(value: object) -> int | None:
    """A database id written in ASCII digits, or None for anything else."""
    if isinstance(value, str) and _ID.fullmatch(value):
        return int(value)
    return None

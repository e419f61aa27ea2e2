"""Plain JSON from what the selectors return (dataclasses, Decimals, lazy translations,
tuples, NaN): the API serves the pages' own records, not copies of their logic."""

from __future__ import annotations

import dataclasses
import math
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.db import models
from django.utils.functional import Promise


def jsonable(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, Decimal):
        return jsonable(float(value))
    if isinstance(value, Promise):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items() if not isinstance(v, models.Model)}
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(v) for v in value]
    if isinstance(value, models.Model):
        return str(value.pk)
    return str(value)

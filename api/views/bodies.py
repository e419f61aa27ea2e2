"""What every JSON body the API reads is: strict JSON types, as the schema documents them. In
pydantic's default (lax) mode ``{"study": true}`` or ``{"study": "1"}`` started an export of study 1
(hostile pass 24); a caller's mistake is a 422 that names the field instead."""

from __future__ import annotations

from ninja import Schema
from pydantic import ConfigDict


class JsonBody(Schema):
    model_config = ConfigDict(strict=True)

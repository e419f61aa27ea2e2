"""Parsing uploaded JSON without letting a hostile file reach a 500 (pure: no database).

``json_parse`` is ``json.loads`` that turns every way a file can break the parser or the
database into ``json.JSONDecodeError`` with a readable message, which every import already
reports as "not valid JSON": nesting deeper than ``MAX_DEPTH`` (200,000 brackets raise
RecursionError in the parser), integers longer than ``MAX_INT_DIGITS`` (Python refuses to
convert more than 4,300 digits with a ValueError), NaN/Infinity and floats that overflow,
texts PostgreSQL cannot store (NUL characters, lone surrogates), and a key given twice in one
object (the parser would keep the last, unseen).
"""

from __future__ import annotations

import json
import math
from typing import Any

from django.utils.translation import gettext as _

MAX_DEPTH = 64
MAX_INT_DIGITS = 30


class _Refused(ValueError):
    pass


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused(_("a number longer than %(n)s digits") % {"n": MAX_INT_DIGITS})
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(_("a number too large to read (%(text)s…)") % {"text": text[:20]})
    return value


def _constant(name: str) -> Any:
    raise _Refused(_("%(name)s is not a number JSON allows") % {"name": name})


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are all different: ``json`` keeps the last of two equal keys, so a
    file saying ``"research_id"`` twice would be read as its second one, unseen (hostile pass 12)."""
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise _Refused(_("the key %(key)s appears twice in one object") % {"key": json.dumps(key)[:80]})
        data[key] = value
    return data


def text_problem(value: str) -> str | None:
    """Why PostgreSQL could not store this text, or None."""
    if "\x00" in value:
        return _("a text contains a NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return _("a text contains an invalid character (a lone surrogate)")
    return None


def json_value_check(data: Any, text: str = "") -> None:
    """Raise json.JSONDecodeError when ``data`` is nested too deeply or holds a text
    the database cannot store (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise json.JSONDecodeError(_("nested more than %(n)s levels deep") % {"n": MAX_DEPTH}, text, 0)
        if isinstance(value, str):
            problem = text_problem(value)
            if problem:
                raise json.JSONDecodeError(problem, text, 0)
        elif isinstance(value, dict):
            for key, item in value.items():
                stack.append((key, depth))
                stack.append((item, depth + 1))
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)


def json_decode_error(exc: BaseException, text: str, index: int = 0) -> json.JSONDecodeError:
    """The parse error to report for what ``json`` raised on a hostile document."""
    if isinstance(exc, json.JSONDecodeError):
        return exc
    if isinstance(exc, RecursionError):
        message = _("nested more than %(n)s levels deep") % {"n": MAX_DEPTH}
    elif isinstance(exc, _Refused):
        message = str(exc)
    elif "digits" in str(exc):
        message = _("a number longer than %(n)s digits") % {"n": MAX_INT_DIGITS}
    else:
        message = _("a value that cannot be read")
    return json.JSONDecodeError(message, text, min(index, len(text)))


def json_parse(text: str) -> Any:
    """``json.loads`` for uploads: every problem is a ``json.JSONDecodeError``."""
    try:
        data = json.loads(
            text, parse_int=_int, parse_float=_float, parse_constant=_constant, object_pairs_hook=_object
        )
    except (RecursionError, ValueError) as exc:
        raise json_decode_error(exc, text) from exc
    json_value_check(data, text)
    return data


def json_decoder() -> json.JSONDecoder:
    """A decoder for ``raw_decode`` with the same number rules as ``json_parse``."""
    return json.JSONDecoder(
        parse_int=_int, parse_float=_float, parse_constant=_constant, object_pairs_hook=_object
    )

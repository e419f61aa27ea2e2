"""How long a provider or gateway asks a caller to wait before trying again, from every
rate-limit hint in use. Pure: headers in, seconds out."""

from __future__ import annotations

import email.utils
import re
import time

# How a server says when to come back: seconds or an HTTP date (``retry-after``; LiteLLM passes
# the provider's on as ``llm_provider-retry-after``), milliseconds (``retry-after-ms``), or when
# the request or token window resets, as OpenAI writes it (``x-ratelimit-reset-requests: 6m0s``).
_HINTS_SECONDS = ("retry-after", "llm_provider-retry-after")
_HINTS_MS = ("retry-after-ms", "llm_provider-retry-after-ms")
_RESETS = ("requests", "tokens")
_DURATION = re.compile(r"(?P<value>\d+(?:\.\d+)?)(?P<unit>ms|h|m|s)")
_UNIT_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def duration_seconds(text: str) -> float | None:
    """``6m0s``, ``1h2m3.5s``, ``20ms``, ``1s`` or a bare number of seconds; None if unreadable."""
    text = text.strip().lower()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    pos, total = 0, 0.0
    for match in _DURATION.finditer(text):
        if match.start() != pos:
            return None
        total += float(match["value"]) * _UNIT_SECONDS[match["unit"]]
        pos = match.end()
    return total if pos and pos == len(text) else None


def _seconds_or_date(value: str) -> float | None:
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, parsed.timestamp() - time.time())


def retry_after_seconds(exc: BaseException) -> float | None:
    """How long the server asked us to wait, from every hint it sent (the longest of the
    explicit ones); the rate-limit window resets count only when no explicit hint came, and
    then only for the window that ran out (``x-ratelimit-remaining-*: 0``) if it says so."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    explicit: list[float] = []
    for name in _HINTS_MS:
        value = headers.get(name)
        if value:
            seconds = _seconds_or_date(value)  # a bare number: milliseconds here
            if seconds is not None and value.strip().replace(".", "", 1).isdigit():
                explicit.append(seconds / 1000)
    for name in _HINTS_SECONDS:
        value = headers.get(name)
        seconds = _seconds_or_date(value) if value else None
        if seconds is not None:
            explicit.append(seconds)
    if explicit:
        return max(explicit)
    resets: list[float] = []
    for kind in _RESETS:
        value = headers.get(f"x-ratelimit-reset-{kind}")
        if not value or headers.get(f"x-ratelimit-remaining-{kind}", "0").strip() not in ("0", ""):
            continue
        seconds = duration_seconds(value)
        if seconds is not None:
            resets.append(seconds)
    return max(resets) if resets else None

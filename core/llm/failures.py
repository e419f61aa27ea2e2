"""What a failed provider call was, said once: the description stored and shown, its kind
and whether a retry may help (``core.llm.client``'s retry loop). The SDK is imported inside the
functions: it is loaded already, as the call that failed went through it."""

from __future__ import annotations

import re
from typing import Any

RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529}


class EmptyReply(Exception):
    """The provider answered 200 with no text."""


_SDK_PREFIX = re.compile(r"^Error code: \d{3}\s*-\s*")


def _provider_message(exc: Any) -> str:
    """The provider's own words, without the SDK's "Error code: 429 - " and JSON wrapping."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else inner
        if isinstance(message, str) and message.strip():
            return _SDK_PREFIX.sub("", message.strip())
    if isinstance(body, str) and body.strip():
        return body.strip()[:500]
    text = exc.message if isinstance(getattr(exc, "message", None), str) else str(exc)
    return _SDK_PREFIX.sub("", text).strip()


def _what(status: int) -> str:
    if 300 <= status < 400:
        return "redirected, not followed"
    if status == 429:
        return "rate limited"
    if status >= 500:
        return "server error"
    if status in (408, 504, 524):
        return "gateway timeout"
    return "refused"


def failure_describe(exc: BaseException, *, timeout: float | None = None) -> str:
    """What happened, said once: ``rate limited (HTTP 429): <the provider's words>``."""
    import openai  # loaded already: the call that failed went through it

    if isinstance(exc, EmptyReply):
        return "the provider returned an empty reply"
    if isinstance(exc, openai.APITimeoutError):
        waited = f" within {timeout:g} s (the endpoint's timeout)" if timeout else " within the timeout"
        return f"no answer{waited}"
    if isinstance(exc, openai.APIConnectionError):
        return f"cannot connect to the provider ({exc.__cause__ or exc})"
    if isinstance(exc, openai.APIStatusError):
        message = _provider_message(exc)
        label = f"{_what(exc.status_code)} (HTTP {exc.status_code})"
        return f"{label}: {message}" if message else label
    return f"{type(exc).__name__}: {exc}"


def failure_kind(exc: BaseException) -> str:
    """What went wrong, for :attr:`LLMError.kind`."""
    import openai  # loaded already: the call that failed went through it

    if isinstance(exc, EmptyReply):
        return "empty"
    if isinstance(exc, openai.APIStatusError):
        return "http"
    if isinstance(exc, openai.APITimeoutError | openai.APIConnectionError):
        return "network"
    return "other"


def failure_retryable(exc: BaseException) -> bool:
    import openai  # loaded already: the call that failed went through it

    if isinstance(exc, EmptyReply | openai.APITimeoutError | openai.APIConnectionError):
        return True
    return isinstance(exc, openai.APIStatusError) and (
        exc.status_code in RETRYABLE_STATUS or exc.status_code >= 500
    )

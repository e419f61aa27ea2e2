"""A whole provider call bounded in time, whatever the server does.

The HTTP client's timeouts count each connect, each read and each write: a server that sends
its answer a byte at a time, every few seconds, holds a call (and the web thread of a *Test
connection*) for as long as it likes. ``DeadlineTransport`` ends the call with the client's
own ``ReadTimeout`` once ``seconds`` have passed since it was sent: no single wait is longer
than ``seconds``, and the answer's body is cut at the deadline, so a call never takes more
than about twice ``seconds`` (a non-streamed answer comes only when the model has finished,
so the wait for its first byte must be allowed the whole ``seconds``).

The SDK's HTTP library is httpx2 (the openai SDK's own); it loads with this module.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx2

from core.llm.transport import EgressTransport


class _DeadlineStream(httpx2.SyncByteStream):
    def __init__(self, inner: Any, deadline: float, request: httpx2.Request):
        self.inner, self.deadline, self.request = inner, deadline, request

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.inner:
            if time.monotonic() > self.deadline:
                raise httpx2.ReadTimeout(
                    "the answer did not finish within the call's time", request=self.request
                )
            yield chunk

    def close(self) -> None:
        self.inner.close()


class DeadlineTransport(EgressTransport):
    """``EgressTransport`` whose every request ends within ``seconds`` in all."""

    def __init__(self, api_key_env: str, seconds: float, **kwargs: Any):
        super().__init__(api_key_env, **kwargs)
        self.seconds = seconds

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        deadline = time.monotonic() + self.seconds
        timeouts = dict(request.extensions.get("timeout") or {})
        for phase in ("connect", "read", "write", "pool"):
            timeouts[phase] = min(timeouts.get(phase) or self.seconds, self.seconds)
        request.extensions["timeout"] = timeouts
        response = super().handle_request(request)
        return httpx2.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=_DeadlineStream(response.stream, deadline, request),
            extensions=response.extensions,
        )

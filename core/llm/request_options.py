"""Which of an endpoint's extra parameters belong in the request body, and which would change
where or how a request is sent (headers, query, timeout, address, credentials): those are
refused when the endpoint is saved and dropped at call (``core.llm.client``). Read from the
openai SDK, imported on first use as in the client."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping
from typing import Any

# Names an endpoint's extra parameters may not use besides the SDK's own options (read from it):
# words of the HTTP layer, which would set headers, the address or credentials if honoured.
TRANSPORT_WORDS = frozenset(
    {"headers", "auth", "url", "proxy", "proxies", "cookies", "verify", "cert", "follow_redirects"}
)


@functools.cache
def create_params() -> frozenset[str]:
    """The parameters ``chat.completions.create`` knows, read from the SDK once."""
    from openai.resources.chat.completions import Completions

    return frozenset(inspect.signature(Completions.create).parameters) - {"self"}


@functools.cache
def request_options() -> frozenset[str]:
    """Names that would change where or how a request is sent rather than what its body
    says, read from the SDK once: the options of ``create`` that are not body parameters
    (``extra_headers``, ``extra_query``, ``timeout``), every option of the client
    (``base_url``, ``api_key``, ``organization``, ``default_headers``, ``http_client``, ...)
    and the words of the HTTP layer (:data:`TRANSPORT_WORDS`); lower case."""
    from openai import OpenAI
    from openai.types.chat.completion_create_params import CompletionCreateParamsBase

    body = set(CompletionCreateParamsBase.__annotations__) | {"stream", "extra_body"}
    client = set(inspect.signature(OpenAI.__init__).parameters) - {"self"}
    return frozenset(name.lower() for name in (create_params() - body) | client | TRANSPORT_WORDS)


# What the product writes in every body itself; ``extra_body``, which the SDK merges last, would
# override it (hostile pass 26: a run recorded as one model could have asked another)
SET_BY_THE_PRODUCT = ("model", "messages")


def extra_params_refused(extra: Mapping[str, Any]) -> list[str]:
    """The names among an endpoint's extra parameters that are request options, not body
    parameters (:func:`request_options`), and ``extra_body.model`` or ``extra_body.messages``:
    refused when the endpoint is saved, dropped at call."""
    options = request_options()
    refused = [str(name) for name in extra if str(name).lower() in options]
    nested = extra.get("extra_body")
    if isinstance(nested, Mapping):
        refused += [f"extra_body.{name}" for name in SET_BY_THE_PRODUCT if name in nested]
    return sorted(refused)

"""Provider calls through the official ``openai`` SDK, with our own retry loop.

The SDK's retries are off (``max_retries=0``): this module retries 429, 5xx,
timeouts, connection errors and empty replies with exponential backoff and jitter,
honours every rate-limit hint a server or gateway sends (``retry-after``,
``retry-after-ms``, LiteLLM's ``llm_provider-retry-after``, OpenAI's
``x-ratelimit-reset-requests``/``-tokens``), paces requests and tokens per minute per
endpoint across all workers (``core.llm.pacing``), and raises :class:`LLMError` with a
message that says once what happened and how long it waited, once the endpoint's retry
budget in seconds is spent (backoff doubles up to ``LLM_BACKOFF_MAX_SECONDS`` and its last
wait ends with the budget) or ``settings.LLM_MAX_ATTEMPTS`` attempts are made (0: no count). Other 4xx errors (bad request, wrong key, unknown model) fail at once: retrying
cannot help.

The API key is read from the environment variable the endpoint names, at call
time, only when that name carries ``settings.LLM_KEY_ENV_PREFIX``; it is sent only to the
hosts the operator bound it to, and a keyless endpoint calls only the hosts the operator
allows (``core.llm.egress``: checked before each call and on every request the HTTP client
makes, which connects to the address it checked; redirects are not followed; a refusal is final, never retried). The endpoint's
extra parameters go into the request body only: the SDK's options that set headers, the
query, the timeout, the URL or credentials are dropped. Every error message this module
produces goes through :func:`redact_credentials` (the key used, spelled out in any way,
and any other credential-looking string a provider or gateway echoed).

The SDK is imported on the first call, not with this module: web processes import
the run services (and so this module) and call a provider only for *Test connection*. Only
the SDK's HTTP library (``core.llm.deadline``, about 0.1 s) loads with this module.
"""

from __future__ import annotations

import logging
import os
import random
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.utils.translation import gettext as _

from core.llm import pacing
from core.llm.deadline import DeadlineTransport
from core.llm.egress import EgressRefused, egress_check
from core.llm.failures import EmptyReply, failure_describe, failure_kind, failure_retryable
from core.llm.hints import retry_after_seconds
from core.llm.keys import NO_KEY, api_key_env_allowed
from core.llm.redaction import redact
from core.llm.request_options import create_params, extra_params_refused
from core.llm.transport import EgressTransport
from core.outages import INFRASTRUCTURE_ERRORS

if TYPE_CHECKING:
    from openai import OpenAI

    from core.llm.endpoint import Endpoint

# A long wait (pacing, a server's Retry-After) is slept in pieces this long, the caller's
# ``before_attempt`` called between them.
WAIT_SLICE_SECONDS = 5.0
_THINK = re.compile(r"^\s*<think>(?P<reasoning>.*?)</think>\s*", re.S)
log = logging.getLogger(__name__)


class LLMError(Exception):
    """A provider call failed for good. The message is safe to show and store. ``status`` is
    the last HTTP status the server answered (None: no answer), ``kind`` what went wrong
    last: "settings" (nothing was sent), "http", "network", "empty" or "other"."""

    kind = "other"

    def __init__(
        self,
        message: str,
        *,
        attempts: int,
        retryable: bool = True,
        status: int | None = None,
        kind: str = "",
    ):
        super().__init__(message)
        self.attempts = attempts
        self.retryable = retryable
        self.status = status
        if kind:
            self.kind = kind


class PacedTooLong(LLMError):
    """The endpoint's pacing holds its next request longer than the caller can wait (a web
    request: *Test connection*); nothing was sent. ``wait_seconds``: how long the turn is off."""

    kind = "paced"

    def __init__(self, message: str, *, wait_seconds: float):
        super().__init__(message, attempts=0, retryable=False)
        self.wait_seconds = wait_seconds


class MissingAPIKey(LLMError):
    kind = "settings"


class KeyNotAllowed(LLMError):
    """The endpoint names a variable outside the allowed set (``LLM_KEY_ENV_PREFIX``)."""

    kind = "settings"


class EgressNotAllowed(LLMError):
    """The call would go to a host the operator did not allow (``core.llm.egress``);
    ``reason`` is the refusal alone, in the active language (for a page)."""

    kind = "settings"

    def __init__(self, message: str, *, reason: str, attempts: int):
        super().__init__(message, attempts=attempts, retryable=False)
        self.reason = reason


@dataclass(frozen=True)
class Completion:
    text: str
    reasoning: str
    prompt_tokens: int
    completion_tokens: int
    latency_ms: int
    attempts: int
    status: int = 200
    # Time spent waiting before the answer (pacing and retry backoff, slept) and how many
    # attempts the provider answered HTTP 429: stored with the call, for the metrics.
    wait_ms: int = 0
    rate_limited: int = 0


def api_key_for(endpoint: Endpoint) -> str:
    """The endpoint's key, read from its environment variable at call time; only a variable
    whose name carries ``settings.LLM_KEY_ENV_PREFIX`` is ever read (an endpoint naming
    ``SECRET_KEY`` or ``DATABASE_URL`` fails here, before anything is sent)."""
    name = endpoint.api_key_env
    if not name:
        return NO_KEY
    if not api_key_env_allowed(name):
        raise KeyNotAllowed(
            f"The API key of endpoint '{endpoint.name}' is to be read from the environment variable "
            f"{name}, which is not allowed: keys are read only from variables whose name starts with "
            f"{settings.LLM_KEY_ENV_PREFIX}. Rename the variable on the workers (e.g. "
            f"{settings.LLM_KEY_ENV_PREFIX}OPENAI) and name it on the endpoint's page.",
            attempts=0,
            retryable=False,
        )
    value = os.environ.get(name, "")
    if not value:
        raise MissingAPIKey(
            f"The API key of endpoint '{endpoint.name}' is read from the environment variable "
            f"{name}, which is not set on this worker.",
            attempts=0,
            retryable=False,
        )
    return value


_clients: dict[tuple[str, str, str, float, bool], OpenAI] = {}
_clients_lock = threading.Lock()


def client_for(endpoint: Endpoint, api_key: str, *, whole_call_deadline: bool = False) -> OpenAI:
    """One SDK client (and connection pool) per endpoint configuration and process. Its HTTP
    client checks every request against the operator's hosts and connects to the address it
    checked (``EgressTransport``), follows no redirect (a 3xx answer is an error the admin sees) and, with
    ``whole_call_deadline``, ends a call that is not done within the endpoint's timeout
    (``DeadlineTransport``)."""
    from openai import (  # lazy: see the module's docstring
        DEFAULT_CONNECTION_LIMITS,
        DefaultHttpxClient,
        OpenAI,
    )

    timeout = float(endpoint.timeout_seconds)
    key = (endpoint.base_url, endpoint.api_key_env, api_key, timeout, whole_call_deadline)
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            # the whole call within the endpoint's timeout, not only each read (core.llm.deadline)
            transport = (
                DeadlineTransport(endpoint.api_key_env, timeout, limits=DEFAULT_CONNECTION_LIMITS)
                if whole_call_deadline
                else EgressTransport(endpoint.api_key_env, limits=DEFAULT_CONNECTION_LIMITS)
            )
            http_client = DefaultHttpxClient(timeout=timeout, follow_redirects=False, transport=transport)
            client = OpenAI(
                base_url=endpoint.base_url,
                api_key=api_key,
                max_retries=0,
                timeout=timeout,
                http_client=http_client,
            )
            _clients[key] = client
    return client


# ``LLM_MAX_ATTEMPTS=0``: attempts are bounded by the retry budget alone (a budget of 600 s
# with 1 s doubling to 60 s is 16 attempts); a count is still a safety net against a zero wait.
UNLIMITED_ATTEMPTS = 10_000


def backoff_seconds(attempt: int, retry_after: float | None = None) -> float:
    """Delay before attempt ``attempt + 1``: the server's hint when it sent one (plus a
    little jitter so that waiting callers do not return in lockstep; the endpoint's retry
    budget, not a cap, decides whether it is worth waiting), else exponential backoff with
    jitter, capped."""
    cap = float(settings.LLM_BACKOFF_MAX_SECONDS)
    if retry_after is not None:
        return retry_after * random.uniform(1.0, 1.1)
    delay = min(cap, float(settings.LLM_BACKOFF_BASE_SECONDS) * 2 ** (attempt - 1))
    return random.uniform(delay / 2, delay)


def _extra(obj: Any, *names: str) -> str:
    extra = getattr(obj, "model_extra", None) or {}
    for name in names:
        value = extra.get(name) or getattr(obj, name, None)
        if isinstance(value, str) and value:
            return value
    return ""


def _split_think(text: str, reasoning: str) -> tuple[str, str]:
    """Some providers inline the reasoning as a leading <think>...</think> block."""
    match = _THINK.match(text)
    if match:
        return text[match.end() :], join_reasoning(reasoning, match["reasoning"].strip())
    return text, reasoning


def join_reasoning(*parts: str) -> str:
    return "\n\n".join(p for p in parts if p)


def _create_kwargs(body: dict[str, Any]) -> dict[str, Any]:
    """Arguments for ``chat.completions.create``: parameters the SDK does not know (a
    provider's own options from the endpoint's extra parameters) go in ``extra_body``;
    request options (headers, query, timeout, address, credentials) are dropped, whoever
    set them."""
    dropped = extra_params_refused(body)
    if dropped:
        log.warning("request options among the body parameters ignored: %s", ", ".join(dropped))
        body = {k: v for k, v in body.items() if k not in dropped}
        if isinstance(body.get("extra_body"), Mapping):
            nested = body["extra_body"].items()
            body["extra_body"] = {k: v for k, v in nested if f"extra_body.{k}" not in dropped}
    params = create_params()
    known = {k: v for k, v in body.items() if k in params}
    unknown = {k: v for k, v in body.items() if k not in params}
    if unknown:
        known["extra_body"] = {**known.get("extra_body", {}), **unknown}
    return known


def _complete_once(
    client: OpenAI, body: dict[str, Any], stream: bool
) -> tuple[str, str, int, int, int, Mapping[str, str]]:
    kwargs = _create_kwargs(body)
    if not stream:
        raw = client.chat.completions.with_raw_response.create(**kwargs)
        status, headers = raw.status_code, raw.headers
        result = raw.parse()
        if not result.choices:
            raise EmptyReply
        message = result.choices[0].message
        text = message.content or ""
        reasoning = _extra(message, "reasoning_content", "reasoning")
        usage = result.usage
        prompt, completion = (usage.prompt_tokens or 0, usage.completion_tokens or 0) if usage else (0, 0)
    else:
        text_parts: list[str] = []
        reasoning_parts: list[str] = []
        prompt = completion = 0
        raw_chunks = client.chat.completions.with_raw_response.create(
            **kwargs, stream=True, stream_options={"include_usage": True}
        )
        status, headers = raw_chunks.status_code, raw_chunks.headers
        for chunk in raw_chunks.parse():
            if chunk.usage:
                prompt, completion = chunk.usage.prompt_tokens or 0, chunk.usage.completion_tokens or 0
            for choice in chunk.choices or []:
                delta = choice.delta
                if delta is None:
                    continue
                if delta.content:
                    text_parts.append(delta.content)
                piece = _extra(delta, "reasoning_content", "reasoning")
                if piece:
                    reasoning_parts.append(piece)
        text, reasoning = "".join(text_parts), "".join(reasoning_parts)
    text, reasoning = _split_think(text, reasoning)
    if not text.strip():
        raise EmptyReply
    return text, reasoning, prompt, completion, status, headers


def _retry_budget(endpoint: Endpoint) -> float:
    budget = getattr(endpoint, "retry_budget_seconds", None)
    return float(budget if budget else settings.LLM_RETRY_BUDGET_SECONDS)


def _seconds(value: float) -> str:
    return f"{value:.1f} s" if value < 10 else f"{value:.0f} s"


def chat_complete(
    *,
    endpoint: Endpoint,
    messages: list[dict[str, str]],
    params: Mapping[str, Any],
    max_attempts: int | None = None,
    before_attempt: Callable[[int], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    whole_call_deadline: bool = False,
    max_pacing_wait: float | None = None,
) -> Completion:
    """One chat completion, paced and with retries. ``before_attempt(n)`` runs before each
    attempt and between the slices of a long wait (the caller renews its heartbeat there).
    ``whole_call_deadline``: the endpoint's timeout bounds each attempt as a whole, not only
    each read (a web request waiting on it: *Test connection*; workers keep per-read timeouts,
    as a streamed answer may take longer than its timeout in all). ``max_pacing_wait``: the
    longest the call waits for its turn in the pacing before :class:`PacedTooLong` (a web
    request cannot wait for a busy run's schedule: hostile pass 26 waited 10 minutes and more).

    Before each attempt the call takes its turn in the endpoint's pacing (requests and
    tokens per minute, ``core.llm.pacing``). A retryable failure waits as long as the
    server asked (every hint it sent), else backs off; the endpoint's retry budget (seconds
    spent waiting to retry, ``retry_budget_seconds``) and ``max_attempts`` bound it. Raises
    :class:`LLMError` saying once what happened, after how many attempts and how long;
    :class:`EgressNotAllowed`, never retried, when the operator's hosts do not include the
    endpoint's (before anything is sent) or a request of the call's (a redirect)."""
    api_key = api_key_for(endpoint)
    try:
        egress_check(endpoint.base_url, api_key_env=endpoint.api_key_env, resolve=False)
    except EgressRefused as exc:
        raise EgressNotAllowed(_egress_message(endpoint, exc), reason=str(exc), attempts=0) from None
    client = client_for(endpoint, api_key, whole_call_deadline=whole_call_deadline)
    extra = dict(endpoint.extra_params or {})
    stream = bool(extra.pop("stream", False))
    # The endpoint's extra parameters (e.g. max_tokens, a provider's own options) go
    # into the request body as they are (request options dropped: _create_kwargs).
    body: dict[str, Any] = {**params, **extra, "model": endpoint.model_name, "messages": messages}
    # 0: no count limit, the retry budget (in time) alone ends the retries
    max_attempts = max_attempts or int(settings.LLM_MAX_ATTEMPTS) or UNLIMITED_ATTEMPTS
    budget = _retry_budget(endpoint)
    timeout = float(endpoint.timeout_seconds)
    last_error = refused = egress = ""
    last_status: int | None = None
    last_kind = "other"
    first = time.monotonic()
    waited = 0.0
    paced_total = 0.0
    limited = 0
    attempt = 0
    delay = 0.0

    def wait(seconds: float) -> None:
        # In slices, so that a caller's heartbeat goes on while a paced or rate-limited call waits.
        left = seconds
        while left > 0:
            piece = min(left, WAIT_SLICE_SECONDS)
            sleep(piece)
            left -= piece
            if left > 0 and before_attempt is not None:
                before_attempt(attempt)

    for attempt in range(1, max_attempts + 1):
        paced = pacing.request_wait(endpoint)
        if max_pacing_wait is not None and paced > max_pacing_wait:
            message = _paced_message(paced)
            raise PacedTooLong(message, wait_seconds=paced)
        if paced > 0:
            wait(paced)
            paced_total += paced
        if before_attempt is not None:
            before_attempt(attempt)
        started = time.monotonic()
        try:
            text, reasoning, prompt, completion, status, headers = _complete_once(client, body, stream)
        except EgressRefused as exc:  # the client's transport: a redirect, say
            egress = str(exc)
        except Exception as exc:
            last_status, last_kind = getattr(exc, "status_code", None), failure_kind(exc)
            if not failure_retryable(exc):
                refused = failure_describe(exc, timeout=timeout)
            else:
                last_error = failure_describe(exc, timeout=timeout)
                limited += getattr(exc, "status_code", None) == 429
                hint = retry_after_seconds(exc)
                delay = backoff_seconds(attempt, hint)
                if hint is None:
                    # Backoff spans the budget: the last wait is what is left of it, so a
                    # provider that comes back before the budget ends is tried again.
                    delay = min(delay, max(budget - waited, 0.0))
        else:
            try:
                pacing.tokens_used(endpoint, prompt + completion)
                pacing.window_observe(endpoint, headers)  # a window the server says is used up
            except INFRASTRUCTURE_ERRORS:  # the answer is in hand: keep it, pace less exactly
                log.warning(
                    "could not charge %d tokens to endpoint %s's pacing", prompt + completion, endpoint.pk
                )
            return Completion(
                text=text,
                reasoning=reasoning,
                prompt_tokens=prompt,
                completion_tokens=completion,
                latency_ms=round((time.monotonic() - started) * 1000),
                attempts=attempt,
                status=status,
                wait_ms=round((paced_total + waited) * 1000),
                rate_limited=limited,
            )
        # Raised and slept outside the except block, so that no SDK exception (whose
        # message may quote the key) rides along as the context of our error.
        if egress:
            raise EgressNotAllowed(_egress_message(endpoint, egress), reason=egress, attempts=attempt)
        if refused:
            what = refused.removeprefix("refused ") if refused.startswith("refused (") else f": {refused}"
            raise LLMError(
                redact(f"The provider refused the request {what}", api_key),
                attempts=attempt,
                retryable=False,
                status=last_status,
                kind=last_kind,
            )
        if attempt >= max_attempts:
            break
        if waited + delay > budget or (delay <= 0 and waited >= budget):
            elapsed = time.monotonic() - first
            beyond = (
                f"The next retry would wait {_seconds(delay)}, beyond the endpoint's retry budget "
                f"({_seconds(budget)}, {_seconds(waited)} used)."
                if delay > 0
                else f"The endpoint's retry budget ({_seconds(budget)}) is spent."
            )
            raise LLMError(
                redact(
                    f"The provider call failed after {attempt} attempt{'s' if attempt > 1 else ''} in "
                    f"{_seconds(elapsed)}: {last_error.rstrip('.')}. {beyond}",
                    api_key,
                ),
                attempts=attempt,
                status=last_status,
                kind=last_kind,
            )
        wait(delay)
        waited += delay
    elapsed = time.monotonic() - first
    raise LLMError(
        redact(
            f"The provider call failed after {attempt} attempts in {_seconds(elapsed)} "
            f"({_seconds(waited)} of it waiting to retry): {last_error}",
            api_key,
        ),
        attempts=attempt,
        status=last_status,
        kind=last_kind,
    )


def _paced_message(seconds: float) -> str:
    return _(
        "The endpoint's pacing holds its next request for %(seconds)s s (its requests or tokens per "
        "minute, or the server's rate-limit window): nothing was sent."
    ) % {"seconds": f"{seconds:.0f}"}


def _egress_message(endpoint: Endpoint, refusal: EgressRefused | str) -> str:
    """The refusal, said once; nothing was sent (it is final: the operator's settings decide)."""
    return f"Not sent (endpoint '{endpoint.name}'): {refusal}"

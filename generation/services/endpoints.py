"""Model endpoints, changed through the product's pages: create, edit, deactivate and
reactivate (each audited), and a "Test connection" that makes one cheap call (audited too).

An endpoint is saved only when it calls where the operator allows (``core.llm.egress``: its
key's bound hosts, or the keyless hosts) and its extra parameters are body parameters only;
both are checked again at every call (``core.llm.client``)."""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import ProtectedError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.llm.client import LLMError, api_key_for, chat_complete
from core.llm.egress import egress_problem
from core.llm.keys import api_key_env_allowed
from core.llm.redaction import redact_credentials
from core.llm.request_options import extra_params_refused
from generation.signals import endpoint_model_changed
from studies.models import ModelEndpoint
from studies.services.audit import (
    AuditedEdit,
    audit_changes,
    audit_record,
    audit_values,
    audited_save,
    audited_update,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# The fields an admin sets on the endpoint pages (in the order of the form).
ENDPOINT_FIELDS = (
    "name",
    "model_number",
    "base_url",
    "model_name",
    "api_key_env",
    "concurrency_limit",
    "timeout_seconds",
    "requests_per_minute",
    "tokens_per_minute",
    "retry_budget_seconds",
    "extra_params",
    "notes",
)
ENDPOINT_EDIT = AuditedEdit(
    model=ModelEndpoint, action="endpoint.update", fields=ENDPOINT_FIELDS, editable=ENDPOINT_FIELDS
)
# A connection test never keeps a page waiting longer than this, whatever the endpoint's timeout.
TEST_TIMEOUT_SECONDS = 20.0
# the longest a test waits for its turn in the endpoint's pacing (a run may hold it for minutes)
TEST_PACING_WAIT_SECONDS = 5.0
# one test of an admin's at a time: each holds a web thread for up to the two above (hostile pass 27:
# ten at once kept /healthz waiting 7 s); the slot lapses by itself if its process dies
TEST_SLOT_SECONDS = int(TEST_TIMEOUT_SECONDS + TEST_PACING_WAIT_SECONDS) + 5
TEST_MAX_TOKENS = 64
TEST_PROMPT = "Reply with one short sentence to say that you are there."
# The answer shown on the page is cut to this many characters (after redaction).
TEST_ANSWER_CHARS = 300


class EndpointError(Exception):
    """A change the endpoint cannot take; the message is for the admin."""


def _clean(endpoint: ModelEndpoint) -> None:
    """The model's validation; no credentials inside the base URL (``user:pass@``: they
    would be stored and shown in clear; keys go through the key reference only); a base URL
    the operator allows for the endpoint's key, or for endpoints without one; no request
    options (headers, timeout, address, credentials) among the extra parameters."""
    endpoint.full_clean()
    errors: dict[str, str] = {}
    parts = urlsplit(endpoint.base_url or "")
    if parts.username or parts.password:
        errors["base_url"] = _("No user name or password in the base URL: name the key's variable instead.")
    elif endpoint.base_url and api_key_env_allowed(endpoint.api_key_env):
        problem = egress_problem(endpoint.base_url, api_key_env=endpoint.api_key_env)
        if problem:
            errors["base_url"] = problem
    refused = extra_params_refused(endpoint.extra_params if isinstance(endpoint.extra_params, dict) else {})
    if refused:
        errors["extra_params"] = _(
            "Not allowed in the extra parameters: %(names)s. They would set the request's headers, "
            "address, timeout or credentials, or replace the model or messages a call sends; only body "
            "parameters such as max_tokens go here."
        ) % {"names": ", ".join(refused)}
    if errors:
        raise ValidationError(errors)


def endpoint_create(*, actor: User | None, values: dict[str, Any]) -> ModelEndpoint:
    """A new endpoint from the page's fields (validated as the model validates them:
    the key reference must carry ``LLM_KEY_ENV_PREFIX``). Raises ValidationError."""
    endpoint = ModelEndpoint(**{field: values[field] for field in ENDPOINT_FIELDS if field in values})
    _clean(endpoint)
    with transaction.atomic():
        audited_save(instance=endpoint, actor=actor, action="endpoint.create", fields=ENDPOINT_FIELDS)
    return endpoint


def endpoint_update(*, endpoint_id: int, actor: User | None, values: dict[str, Any]) -> ModelEndpoint:
    """Change an endpoint's fields; the model number is fixed once responses carry it
    (their research IDs name it). Records ``{field: [old, new]}``; no event when nothing
    changed. Raises EndpointError or ValidationError."""

    def check(endpoint: ModelEndpoint, before: dict[str, Any]) -> None:
        if endpoint.model_number != before["model_number"] and endpoint.responses.exists():
            raise EndpointError(
                _("The model number is fixed: responses of this endpoint carry it in their research IDs.")
            )
        _clean(endpoint)

    with transaction.atomic():
        before = ModelEndpoint.objects.filter(pk=endpoint_id).values_list("model_name", flat=True).first()
        endpoint = audited_update(edit=ENDPOINT_EDIT, pk=endpoint_id, actor=actor, values=values, check=check)
        if before is not None and endpoint.model_name != before:
            endpoint_model_changed.send(sender=ModelEndpoint, endpoint_id=endpoint.pk, actor=actor)
    return endpoint


def endpoint_set_active(*, endpoint_id: int, actor: User | None, active: bool) -> ModelEndpoint:
    """Deactivate (no new batch can choose it; its responses stay) or reactivate."""
    with transaction.atomic():
        endpoint = ModelEndpoint.objects.select_for_update().get(pk=endpoint_id)
        if endpoint.is_active != active:
            audit_record(
                actor=actor,
                action="endpoint.activate" if active else "endpoint.deactivate",
                target=endpoint,
                changes={"is_active": [endpoint.is_active, active]},
            )
            endpoint.is_active = active
            endpoint.save(update_fields=["is_active"])
    return endpoint


def endpoint_delete(*, endpoint_id: int, actor: User | None) -> None:
    """Delete an endpoint that nothing refers to; one with responses, runs or judges is
    kept (deactivate it instead). Raises EndpointError."""
    with transaction.atomic():
        endpoint = ModelEndpoint.objects.select_for_update().get(pk=endpoint_id)
        audit_record(
            actor=actor,
            action="endpoint.delete",
            target=endpoint,
            changes=audit_changes(
                before=audit_values(endpoint, ENDPOINT_FIELDS), after=dict.fromkeys(ENDPOINT_FIELDS)
            ),
        )
        try:
            with transaction.atomic():
                endpoint.delete()
        except ProtectedError:
            raise EndpointError(
                _("This endpoint has responses, runs or judges: deactivate it instead, they keep it.")
            ) from None


@dataclass(frozen=True)
class ConnectionCheck:
    """What a connection test shows: whether the model answered, the HTTP status (None: no
    answer), the latency, a short redacted answer, or an error that never quotes a server's
    non-2xx answer. ``outcome`` is what the audit trail records."""

    ok: bool
    latency_ms: int
    status: int | None = None
    answer: str = ""
    error: str = ""
    outcome: str = "answered"


def endpoint_test_connection(*, endpoint: ModelEndpoint, actor: User | None) -> ConnectionCheck:
    """One cheap call (a one-line prompt, at most ``TEST_MAX_TOKENS`` tokens, one attempt,
    at most ``TEST_TIMEOUT_SECONDS`` whatever the extra parameters say) through the product's
    LLM client, with the endpoint's key reference, hosts and parameters: the status, the
    latency and the model's answer, shortened and redacted. A failure says what kind it was
    without the server's words (no internal page is read through it) and without telling a
    refused connection from a dropped one (no port is scanned through it). Every test is
    audited (``endpoint.test``); the endpoint itself is not changed. One test of an admin's runs
    at a time: another pressed meanwhile answers at once that one is running (outcome "busy")."""
    slot = f"endpoint-test:{actor.pk if actor is not None else 0}"
    if cache.add(slot, 1, timeout=TEST_SLOT_SECONDS) is False:  # a cache that is away (None) never stops it
        check = ConnectionCheck(
            ok=False,
            latency_ms=0,
            error=_(
                "Another connection test of yours is still running: press it again once it has answered."
            ),
            outcome="busy",
        )
    else:
        try:
            check = _connection_check(endpoint)
        finally:
            cache.delete(slot)
    audit_record(
        actor=actor,
        action="endpoint.test",
        target=endpoint,
        changes={
            "base_url": endpoint.base_url,
            "model_name": endpoint.model_name,
            "api_key_env": endpoint.api_key_env,
            "outcome": check.outcome,
            "status": check.status,
            "latency_ms": check.latency_ms,
        },
    )
    return check


def _connection_check(endpoint: ModelEndpoint) -> ConnectionCheck:
    if not endpoint.can_generate:
        return ConnectionCheck(
            ok=False,
            latency_ms=0,
            error=_("Set a base URL and a model name first."),
            outcome="not configured",
        )
    probe = copy.copy(endpoint)
    probe.timeout_seconds = min(float(endpoint.timeout_seconds), TEST_TIMEOUT_SECONDS)
    extra = dict(endpoint.extra_params or {})
    # a body merged last and more than one completion would lift the probe's cap (hostile pass 21:
    # extra_body's max_tokens 999999, n 64): a probe asks for one short completion
    extra = {key: value for key, value in extra.items() if key not in ("extra_body", "n")}
    for key in ("max_tokens", "max_completion_tokens"):
        if key in extra:
            extra[key] = min(_int(extra[key]), TEST_MAX_TOKENS)
    probe.extra_params = extra  # request options (a timeout among them) are dropped by the client
    params: dict[str, Any] = {} if "max_completion_tokens" in extra else {"max_tokens": TEST_MAX_TOKENS}
    started = time.monotonic()
    try:
        completion = chat_complete(
            endpoint=probe,
            messages=[{"role": "user", "content": TEST_PROMPT}],
            params=params,
            max_attempts=1,
            whole_call_deadline=True,  # a web thread waits: a dripping server cannot hold it
            max_pacing_wait=TEST_PACING_WAIT_SECONDS,  # nor a busy run's pacing (hostile pass 26)
        )
    except LLMError as exc:
        error, outcome, status = _failure(exc, timeout=probe.timeout_seconds)
    except Exception:  # an unusable URL, a proxy's garbage: said, never a 500
        error, outcome, status = _("The call could not be made with these settings."), "other", None
    else:
        # an answer echoing the key (a hostile or misconfigured server) is redacted like an error
        answer = redact_credentials(completion.text[:2000], secrets=_key_values(endpoint))
        if len(answer) > TEST_ANSWER_CHARS:
            answer = answer[:TEST_ANSWER_CHARS].rstrip() + "…"
        return ConnectionCheck(
            ok=True, latency_ms=completion.latency_ms, status=completion.status, answer=answer
        )
    return ConnectionCheck(
        ok=False,
        latency_ms=round((time.monotonic() - started) * 1000),
        status=status,
        error=redact_credentials(error),
        outcome=outcome,
    )


def _failure(exc: LLMError, *, timeout: float) -> tuple[str, str, int | None]:
    """(message, outcome, status) of a failed test: the settings' own message (nothing was
    sent), or the kind of failure with the HTTP status, never the server's words."""
    if exc.kind == "settings":
        return getattr(exc, "reason", str(exc)), "refused by settings", None
    if exc.kind == "paced":
        return str(exc), "paced", None
    if exc.kind == "http" and exc.status is not None:
        message = _("The server answered HTTP %(status)s.") % {"status": exc.status}
        hint = _STATUS_HINTS.get(exc.status // 100 * 100 if exc.status < 400 else exc.status)
        return (f"{message} {hint}" if hint else message), "http error", exc.status
    if exc.kind == "empty":
        return _("The server answered without any text."), "empty answer", None
    if exc.kind == "network":
        return (
            _(
                "No answer: the server could not be reached, closed the connection or did not answer "
                "within %(seconds)s s."
            )
            % {"seconds": f"{timeout:g}"},
            "no answer",
            None,
        )
    return _("The server's answer is not an OpenAI-compatible chat completion."), "unreadable answer", None


_STATUS_HINTS = {
    300: gettext_lazy("Redirects are not followed: give the endpoint the address it redirects to."),
    401: gettext_lazy("Check the key."),
    403: gettext_lazy("Check the key and what it may use."),
    404: gettext_lazy("Check the base URL and the model name."),
    429: gettext_lazy("Rate limited: try again later."),
}


def _key_values(endpoint: ModelEndpoint) -> list[str]:
    """The key the call used (read again as the client read it), to redact it wherever echoed."""
    try:
        return [api_key_for(endpoint)]
    except LLMError:
        return []


def _int(value: Any) -> int:
    try:
        return max(1, int(value))
    except (TypeError, ValueError):
        return TEST_MAX_TOKENS

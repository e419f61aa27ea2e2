"""Model endpoints, changed through the product's pages: create, edit, deactivate and
reactivate (each audited), and a "Test connection" that makes one cheap call."""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import ProtectedError
from django.utils.translation import gettext as _

from core.llm.client import LLMError, api_key_for, chat_complete, redact_credentials
from studies.models import ModelEndpoint
from studies.services.audit import (
    AuditedEdit,
    audit_changes,
    audit_record,
    audit_values,
    audited_save,
    audited_update,
)

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
TEST_MAX_TOKENS = 64
TEST_PROMPT = "Reply with one short sentence to say that you are there."


class EndpointError(Exception):
    """A change the endpoint cannot take; the message is for the admin."""


def _clean(endpoint: ModelEndpoint) -> None:
    """The model's validation, and no credentials inside the base URL (``user:pass@``):
    they would be stored and shown in clear; keys go through the key reference only."""
    endpoint.full_clean()
    parts = urlsplit(endpoint.base_url or "")
    if parts.username or parts.password:
        raise ValidationError(
            {"base_url": _("No user name or password in the base URL: name the key's variable instead.")}
        )


def endpoint_create(*, actor, values: dict[str, Any]) -> ModelEndpoint:
    """A new endpoint from the page's fields (validated as the model validates them:
    the key reference must carry ``LLM_KEY_ENV_PREFIX``). Raises ValidationError."""
    endpoint = ModelEndpoint(**{field: values[field] for field in ENDPOINT_FIELDS if field in values})
    _clean(endpoint)
    with transaction.atomic():
        audited_save(instance=endpoint, actor=actor, action="endpoint.create", fields=ENDPOINT_FIELDS)
    return endpoint


def endpoint_update(*, endpoint_id: int, actor, values: dict[str, Any]) -> ModelEndpoint:
    """Change an endpoint's fields; the model number is fixed once responses carry it
    (their research IDs name it). Records ``{field: [old, new]}``; no event when nothing
    changed. Raises EndpointError or ValidationError."""

    def check(endpoint: ModelEndpoint, before: dict[str, Any]) -> None:
        if endpoint.model_number != before["model_number"] and endpoint.responses.exists():
            raise EndpointError(
                _("The model number is fixed: responses of this endpoint carry it in their research IDs.")
            )
        _clean(endpoint)

    return audited_update(edit=ENDPOINT_EDIT, pk=endpoint_id, actor=actor, values=values, check=check)


def endpoint_set_active(*, endpoint_id: int, actor, active: bool) -> ModelEndpoint:
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


def endpoint_delete(*, endpoint_id: int, actor) -> None:
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
    ok: bool
    latency_ms: int
    answer: str = ""
    error: str = ""


def endpoint_test_connection(*, endpoint: ModelEndpoint) -> ConnectionCheck:
    """One cheap call (a one-line prompt, at most ``TEST_MAX_TOKENS`` tokens, one attempt,
    at most ``TEST_TIMEOUT_SECONDS``) through the product's LLM client, with the endpoint's
    key reference and parameters: the latency and the model's answer, or the error with
    every credential-looking string redacted. Changes nothing."""
    if not endpoint.can_generate:
        return ConnectionCheck(ok=False, latency_ms=0, error=_("Set a base URL and a model name first."))
    probe = copy.copy(endpoint)
    probe.timeout_seconds = min(float(endpoint.timeout_seconds), TEST_TIMEOUT_SECONDS)
    extra = dict(endpoint.extra_params or {})
    for key in ("max_tokens", "max_completion_tokens"):
        if key in extra:
            extra[key] = min(_int(extra[key]), TEST_MAX_TOKENS)
    probe.extra_params = extra
    params: dict[str, Any] = {} if "max_completion_tokens" in extra else {"max_tokens": TEST_MAX_TOKENS}
    started = time.monotonic()
    try:
        completion = chat_complete(
            endpoint=probe,
            messages=[{"role": "user", "content": TEST_PROMPT}],
            params=params,
            max_attempts=1,
        )
    except LLMError as exc:
        error = str(exc)
    except Exception as exc:  # an unusable URL, a proxy's garbage: shown, never a 500
        error = f"{type(exc).__name__}: {exc}"
    else:
        # an answer echoing the key (a hostile or misconfigured server) is redacted like an error
        answer = redact_credentials(completion.text[:2000], secrets=_key_values(endpoint))
        return ConnectionCheck(ok=True, latency_ms=completion.latency_ms, answer=answer)
    return ConnectionCheck(
        ok=False, latency_ms=round((time.monotonic() - started) * 1000), error=redact_credentials(error)
    )


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

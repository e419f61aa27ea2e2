"""Personal access tokens: made and revoked by their owner (an admin or a researcher, never
a rater: a rater never sees unblinded data), at most ``API_TOKENS_PER_USER`` live at once,
checked on every API request. Making, revoking and refusals are audited (a refusal at most
once a minute per caller and reason: a flood of bad requests writes no flood of rows);
reads are counted (``core.counters``, for the metrics), writes audited.

A failed check raises :class:`TokenRefused` with the HTTP status and the message the API
answers with (401: no valid token; 403: a valid token that may not do this). The rate of
requests per user is django-ninja's throttling (``api.views.throttles``)."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from api.models import ApiToken
from api.selectors import API_COUNTERS
from core.accounts.roles import is_admin_or_researcher
from core.counters import event_counter_add
from studies.models import Study
from studies.services.audit import audit_record

if TYPE_CHECKING:
    from django.contrib.auth.models import User

TOKEN_PREFIX = "tlm_"  # noqa: S105 (not a secret: marks our tokens in logs and scanners)
PREFIX_SHOWN = 10  # "tlm_" and six characters of the secret: enough to tell tokens apart
MAX_DAYS = 366
# counters of API requests served (core.counters; /metrics: teamllm_api_requests)
READS, WRITES = API_COUNTERS["read"], API_COUNTERS["write"]
REFUSAL_AUDIT_SECONDS = 60  # one audit row per caller and reason in this window


class TokenRefused(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class TokenLimit(ValueError):
    """The user holds as many live tokens as they may; ``message`` says what to do."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class NewToken:
    token: ApiToken
    plain: str  # shown once, never stored


def token_digest(plain: str) -> str:
    return hashlib.sha256(plain.encode()).hexdigest()


def tokens_live(*, user: User) -> int:
    """How many of the user's tokens still work (not revoked, not expired)."""
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True, expires_at__gt=timezone.now()).count()


def token_create(*, user: User, name: str, scope: str, days: int, study: Study | None = None) -> NewToken:
    """A new token of ``user`` valid for ``days`` days; the plain token is returned once.
    Raises :class:`TokenLimit` (audited) when the user holds ``API_TOKENS_PER_USER`` live ones."""
    if not is_admin_or_researcher(user):
        raise PermissionDenied("only admins and researchers may hold API tokens")
    if scope not in ApiToken.Scope.values:
        raise ValueError(f"unknown scope {scope!r}")
    if not 1 <= days <= MAX_DAYS:
        raise ValueError(f"days must be between 1 and {MAX_DAYS}")
    plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
    cap = int(settings.API_TOKENS_PER_USER)
    token = None
    with transaction.atomic():
        # the user's row locked: two requests at once cannot both take the last place
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        if tokens_live(user=user) < cap:
            token = ApiToken.objects.create(
                user=user,
                name=name.strip()[:100],
                prefix=plain[:PREFIX_SHOWN],
                digest=token_digest(plain),
                scope=scope,
                study=study,
                expires_at=timezone.now() + timedelta(days=days),
            )
            audit_record(
                actor=user,
                action="api.token_create",
                target=token,
                study=study,
                changes={"name": token.name, "scope": scope, "expires_at": token.expires_at.isoformat()},
            )
    if token is None:
        audit_record(actor=user, action="api.token_refused", changes={"reason": "token limit", "limit": cap})
        raise TokenLimit(
            _("You hold %(n)s live tokens, as many as one person may: revoke one you no longer use first.")
            % {"n": cap}
        )
    return NewToken(token=token, plain=plain)


def token_revoke(*, token: ApiToken, user: User) -> ApiToken:
    """Revoke one of the user's own tokens (revoking twice changes nothing)."""
    if token.user_id != user.pk:
        raise PermissionDenied("a token is revoked by its owner")
    with transaction.atomic():
        locked = ApiToken.objects.select_for_update().get(pk=token.pk)
        if locked.revoked_at is None:
            _token_revoked(locked, actor=user)
    return locked


def _token_revoked(token: ApiToken, *, actor: User | None, changes: dict[str, Any] | None = None) -> None:
    """Mark a locked live token revoked, audited (``api.token_revoke``)."""
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    audit_record(actor=actor, action="api.token_revoke", target=token, study=token.study, changes=changes)


def tokens_revoke_for_deactivation(*, user: User, actor: User | None) -> int:
    """Revoke every live token of a deactivated account (a reactivation brings none back: its
    owner makes new ones), each audited; returns how many."""
    with transaction.atomic():
        live = list(ApiToken.objects.select_for_update().filter(user=user, revoked_at__isnull=True))
        for token in live:
            _token_revoked(token, actor=actor, changes={"reason": "account deactivated"})
    return len(live)


def person_key(user: User) -> str:
    """A person in cache keys: the account's id and when it was made (an id SQLite gives again
    to a new account does not hand it the old one's counts)."""
    return f"{user.pk}.{user.date_joined:%s%f}"


def api_refusal_record(*, user: User | None, reason: str, path: str, ident: str = "") -> None:
    """Audit a refused API request (``api.refused``: a bad token, a forbidden request, the
    rate limit), at most once per ``REFUSAL_AUDIT_SECONDS`` for the same caller (``user``,
    else ``ident``: a token prefix or an address) and reason."""
    caller = f"user:{person_key(user)}" if user is not None else f"anon:{ident[:64]}"
    # hashed: a reason and a caller's token prefix hold spaces and quotes, no cache key may
    key = hashlib.sha256(f"{caller}\n{reason}".encode()).hexdigest()
    if not cache.add(f"api-refused:{key}", 1, timeout=REFUSAL_AUDIT_SECONDS):
        return
    audit_record(
        actor=user,
        action="api.refused",
        changes={"reason": reason, "path": path[:300], **({"caller": ident[:64]} if user is None else {})},
    )


def _token_check(*, plain: str, write: bool) -> ApiToken:
    if not plain.startswith(TOKEN_PREFIX) or len(plain) > 200:
        raise TokenRefused(401, "malformed token: expected 'Authorization: Bearer tlm_...'")
    token = ApiToken.objects.select_related("user", "study").filter(digest=token_digest(plain)).first()
    if token is None:
        raise TokenRefused(401, "unknown token")
    if token.revoked_at is not None:
        raise TokenRefused(401, "this token was revoked")
    if token.is_expired:
        raise TokenRefused(401, "this token has expired")
    if not token.user.is_active:
        raise TokenRefused(401, "the token's account is deactivated")
    if not is_admin_or_researcher(token.user):  # the owner's roles changed since
        raise TokenRefused(403, "the token's account is no longer an admin or researcher")
    if write and token.scope != ApiToken.Scope.WRITE:
        raise TokenRefused(403, "this token is read-only: this request needs a read-write token")
    return token


def token_authenticate(*, plain: str, method: str, path: str, write: bool) -> ApiToken:
    """The live token ``plain`` names, its use recorded (last used; a read counted, a write
    audited); else :class:`TokenRefused`, audited (``api_refusal_record``). ``write``: the
    request changes something (needs read-write)."""
    try:
        token = _token_check(plain=plain, write=write)
    except TokenRefused as exc:
        known = ApiToken.objects.select_related("user").filter(digest=token_digest(plain)).first()
        owner = known.user if known is not None else None
        api_refusal_record(user=owner, reason=exc.message, path=path, ident=plain[:PREFIX_SHOWN])
        raise
    now = timezone.now()
    with transaction.atomic():
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        if write:
            audit_record(
                actor=token.user,
                action="api.token_use",
                target=token,
                study=token.study,
                changes={"method": method, "path": path[:300]},
            )
        event_counter_add(name=WRITES if write else READS)
    token.last_used_at = now
    return token

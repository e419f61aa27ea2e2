"""Personal access tokens: made and revoked by their owner (an admin or a researcher, never
a rater: a rater never sees unblinded data), checked on every API request, every use audited.

A failed check raises :class:`TokenRefused` with the HTTP status and the message the API
answers with (401: no valid token; 403: a valid token that may not do this)."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from api.models import ApiToken
from core.accounts.roles import is_admin_or_researcher
from studies.models import Study
from studies.services.audit import audit_record

TOKEN_PREFIX = "tlm_"  # noqa: S105 (not a secret: marks our tokens in logs and scanners)
PREFIX_SHOWN = 10  # "tlm_" and six characters of the secret: enough to tell tokens apart
MAX_DAYS = 366


class TokenRefused(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class NewToken:
    token: ApiToken
    plain: str  # shown once, never stored


def token_digest(plain: str) -> str:
    return hashlib.sha256(plain.encode()).hexdigest()


def token_create(*, user, name: str, scope: str, days: int, study: Study | None = None) -> NewToken:
    """A new token of ``user`` valid for ``days`` days; the plain token is returned once."""
    if not is_admin_or_researcher(user):
        raise PermissionDenied("only admins and researchers may hold API tokens")
    if scope not in ApiToken.Scope.values:
        raise ValueError(f"unknown scope {scope!r}")
    if not 1 <= days <= MAX_DAYS:
        raise ValueError(f"days must be between 1 and {MAX_DAYS}")
    plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
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
    return NewToken(token=token, plain=plain)


def token_revoke(*, token: ApiToken, user) -> ApiToken:
    """Revoke one of the user's own tokens (revoking twice changes nothing)."""
    if token.user_id != user.pk:
        raise PermissionDenied("a token is revoked by its owner")
    with transaction.atomic():
        locked = ApiToken.objects.select_for_update().get(pk=token.pk)
        if locked.revoked_at is None:
            locked.revoked_at = timezone.now()
            locked.save(update_fields=["revoked_at"])
            audit_record(actor=user, action="api.token_revoke", target=locked, study=locked.study)
    return locked


def _rate_check(token: ApiToken) -> None:
    """At most ``API_RATE_LIMIT_PER_MINUTE`` requests per token in each clock minute
    (Django's cache: shared by every web process when it is Redis)."""
    limit = int(settings.API_RATE_LIMIT_PER_MINUTE)
    if limit <= 0:
        return
    # keyed by the digest, not the id: an id can come back (SQLite reuses a deleted row's), and
    # a new token must not inherit the old one's count
    key = f"api-rate:{token.digest}:{int(timezone.now().timestamp() // 60)}"
    cache.add(key, 0, timeout=120)
    try:
        count = cache.incr(key)
    except ValueError:  # evicted between add and incr: count this request as the first
        cache.set(key, 1, timeout=120)
        count = 1
    if count > limit:
        raise TokenRefused(429, f"rate limit: at most {limit} requests per minute per token")


def token_authenticate(*, plain: str, method: str, path: str, write: bool) -> ApiToken:
    """The live token ``plain`` names, its use recorded (last used, audit trail); else
    :class:`TokenRefused`. ``write``: the request changes something (needs read-write)."""
    if not plain.startswith(TOKEN_PREFIX) or len(plain) > 200:
        raise TokenRefused(401, "malformed token: expected 'Authorization: Bearer tlm_...'")
    token = ApiToken.objects.select_related("user", "study").filter(digest=token_digest(plain)).first()
    if token is None:
        raise TokenRefused(401, "unknown token")
    if token.revoked_at is not None:
        raise TokenRefused(401, "this token was revoked")
    if token.is_expired:
        raise TokenRefused(401, "this token has expired")
    user = token.user
    if not user.is_active:
        raise TokenRefused(401, "the token's account is deactivated")
    if not is_admin_or_researcher(user):  # the owner's roles changed since
        raise TokenRefused(403, "the token's account is no longer an admin or researcher")
    if write and token.scope != ApiToken.Scope.WRITE:
        raise TokenRefused(403, "this token is read-only: this request needs a read-write token")
    _rate_check(token)
    now = timezone.now()
    with transaction.atomic():
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        audit_record(
            actor=user,
            action="api.token_use",
            target=token,
            study=token.study,
            changes={"method": method, "path": path[:300]},
        )
    token.last_used_at = now
    return token

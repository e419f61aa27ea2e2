"""Personal access tokens (issue 28): stored as a digest, shown once, made and revoked by
their admin or researcher owner on the tokens page, never by a rater; every refusal (none,
malformed, unknown, expired, revoked, read-only for a write, a rater's) answers 401/403 with
its message; every use is audited and shown as "last used"; a token has a rate limit."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.test import Client
from django.utils import timezone

from api.models import ApiToken
from api.services.tokens import token_create, token_digest, token_revoke
from core.accounts.roles import RATER
from studies.models import AuditEvent, Study

pytestmark = pytest.mark.django_db


def _user(name: str):
    return get_user_model().objects.get(username=name)


def _get(token: str, url: str = "/api/v1/studies"):
    return Client().get(url, HTTP_AUTHORIZATION=f"Bearer {token}")


def _exhaust(plain: str, limit: int) -> None:
    codes = [_get(plain).status_code for _ in range(limit + 1)]
    if codes[-1] == 200:  # the clock minute turned during the loop: once more in the new minute
        codes = [_get(plain).status_code for _ in range(limit + 1)]
    assert codes[-1] == 429


def test_a_token_is_stored_as_its_digest_and_shown_once_on_the_page(demo):
    client = Client()
    client.force_login(_user("researcher"))
    page = client.post("/api/tokens/", {"name": "notebook", "scope": "read", "days": "30"})
    assert page.status_code == 200 and page["Cache-Control"] == "no-store"
    plain = page.context["plain"]
    assert plain.startswith("tlm_") and plain in page.content.decode()
    token = ApiToken.objects.get()
    assert token.digest == token_digest(plain) and plain not in str(list(ApiToken.objects.values_list()))
    assert AuditEvent.objects.filter(action="api.token_create", actor=token.user).count() == 1
    again = client.get("/api/tokens/").content.decode()
    assert plain not in again and token.prefix in again  # never shown again, only its prefix
    assert _get(plain).status_code == 200


def test_raters_cannot_hold_tokens_nor_open_the_page(demo):
    with pytest.raises(PermissionDenied):
        token_create(user=_user("rater1"), name="x", scope="read", days=1)
    client = Client()
    client.force_login(_user("rater1"))
    assert client.get("/api/tokens/").status_code == 403
    assert client.post("/api/tokens/", {"name": "x", "scope": "read", "days": "1"}).status_code == 403
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize(
    ("header", "status", "message"),
    [
        (None, 401, "Bearer"),
        ("Token abc", 401, "malformed Authorization header"),
        ("Bearer abc", 401, "malformed token"),
        ("Bearer tlm_not-a-token-of-ours", 401, "unknown token"),
    ],
)
def test_missing_and_malformed_tokens_get_401_with_a_message(demo, header, status, message):
    extra = {"HTTP_AUTHORIZATION": header} if header else {}
    reply = Client().get("/api/v1/studies", **extra)
    assert reply.status_code == status and message in reply.json()["detail"]


def test_expired_revoked_and_read_only_tokens_are_refused_with_their_reason(demo):
    owner = _user("researcher")
    expired = token_create(user=owner, name="old", scope="read", days=1)
    ApiToken.objects.filter(pk=expired.token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    reply = _get(expired.plain)
    assert reply.status_code == 401 and "expired" in reply.json()["detail"]

    revoked = token_create(user=owner, name="gone", scope="write", days=1)
    assert _get(revoked.plain).status_code == 200
    token_revoke(token=revoked.token, user=owner)
    reply = _get(revoked.plain)
    assert reply.status_code == 401 and "revoked" in reply.json()["detail"]

    read = token_create(user=owner, name="read", scope="read", days=1)
    study = Study.objects.get()
    reply = Client().post(
        "/api/v1/exports", {"study": study.pk}, content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {read.plain}",
    )  # fmt: skip
    assert reply.status_code == 403 and "read-only" in reply.json()["detail"]


def test_a_token_whose_owner_became_a_rater_is_refused(demo):
    owner = _user("researcher")
    new = token_create(user=owner, name="x", scope="read", days=1)
    owner.groups.add(owner.groups.model.objects.get(name=RATER))
    reply = _get(new.plain)
    assert reply.status_code == 403 and "no longer" in reply.json()["detail"]


def test_every_use_is_audited_and_shown_as_last_used(demo):
    owner = _user("researcher")
    new = token_create(user=owner, name="x", scope="read", days=1)
    assert new.token.last_used_at is None
    for _ in range(3):
        assert _get(new.plain).status_code == 200
    uses = AuditEvent.objects.filter(action="api.token_use", actor=owner)
    assert uses.count() == 3 and uses.first().changes == {"method": "GET", "path": "/api/v1/studies"}
    new.token.refresh_from_db()
    assert new.token.last_used_at is not None
    client = Client()
    client.force_login(owner)
    assert "never" not in client.get("/api/tokens/").content.decode().split('id="tokens"')[1]


def test_revoking_is_for_the_owner_only_and_audited(demo):
    owner, other = _user("researcher"), _user("admin")
    new = token_create(user=owner, name="x", scope="read", days=1)
    client = Client()
    client.force_login(other)
    assert client.post(f"/api/tokens/{new.token.pk}/revoke").status_code == 404
    with pytest.raises(PermissionDenied):
        token_revoke(token=new.token, user=other)
    assert _get(new.plain).status_code == 200
    client.force_login(owner)
    assert client.post(f"/api/tokens/{new.token.pk}/revoke").status_code == 302
    assert _get(new.plain).status_code == 401
    assert AuditEvent.objects.filter(action="api.token_revoke", actor=owner).count() == 1


def test_the_rate_limit_counts_per_token(demo, settings):
    settings.API_RATE_LIMIT_PER_MINUTE = 3
    owner = _user("researcher")
    first = token_create(user=owner, name="a", scope="read", days=1)
    second = token_create(user=owner, name="b", scope="read", days=1)
    _exhaust(first.plain, 3)
    assert "rate limit" in _get(first.plain).json()["detail"]
    assert _get(second.plain).status_code == 200  # another token has its own count


def test_a_new_token_given_a_deleted_ones_id_starts_its_own_count(demo, settings):
    """SQLite gives a deleted row's id to the next row: the count follows the token, not its id."""
    settings.API_RATE_LIMIT_PER_MINUTE = 2
    owner = _user("researcher")
    old = token_create(user=owner, name="old", scope="read", days=1)
    _exhaust(old.plain, 2)
    old_id = old.token.pk
    ApiToken.objects.filter(pk=old_id).delete()
    new = token_create(user=owner, name="new", scope="read", days=1)
    ApiToken.objects.filter(pk=new.token.pk).update(id=old_id)  # numbered as SQLite would
    assert _get(new.plain).status_code == 200


def test_a_token_limited_to_a_study_finds_no_other(demo):
    owner = _user("researcher")
    demo_study = Study.objects.get()
    other = Study.objects.create(name="Other study")
    limited = token_create(user=owner, name="x", scope="read", days=1, study=demo_study)
    assert [s["id"] for s in _get(limited.plain).json()] == [demo_study.pk]
    assert _get(limited.plain, f"/api/v1/studies/{demo_study.pk}/scenarios").status_code == 200
    for path in ("scenarios", "responses", "sheets", "items", "agreement", "tables/table1"):
        assert _get(limited.plain, f"/api/v1/studies/{other.pk}/{path}").status_code == 404

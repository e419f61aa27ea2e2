"""Sessions: Django's ``cached_db`` store (the database, read through the cache) and the
user of every request read by ``AccountBackend.get_user``: logging in and out, a changed
password or a deactivated account end the session, even when the session is in the cache."""

import pytest
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.test import Client

from tests.factories import rater

pytestmark = pytest.mark.django_db


def test_a_logged_in_rater_stays_logged_in_and_logging_out_ends_the_session(settings):
    assert settings.SESSION_ENGINE == "django.contrib.sessions.backends.cached_db"
    rater("session-rater")
    client = Client()
    assert (
        client.post("/accounts/login/", {"username": "session-rater", "password": "pw-test-123"}).status_code
        == 302
    )
    assert client.get("/scoring/").status_code == 200 and "_auth_user_id" in client.session
    key = client.session.session_key
    assert Session.objects.filter(pk=key).exists()  # the database holds it, the cache too
    assert cache.get(f"django.contrib.sessions.cached_db{key}") is not None
    client.post("/accounts/logout/")
    assert not Session.objects.filter(pk=key).exists()
    assert cache.get(f"django.contrib.sessions.cached_db{key}") is None
    assert client.get("/scoring/").url.startswith("/accounts/login/")


def test_a_password_change_or_a_deactivation_ends_the_other_sessions():
    """Django checks the session's password hash against the user read by
    ``AccountBackend.get_user``'s own query: a changed password logs the old session out, as
    does a deactivated account."""
    user = rater("session-changes")
    for change in ("password", "inactive"):
        client = Client()
        client.post("/accounts/login/", {"username": "session-changes", "password": "pw-test-123"})
        assert client.get("/scoring/").status_code == 200
        if change == "password":
            user.set_password("a-new-password-77")
            user.save()
            user.set_password("pw-test-123")  # back, with a new salt: the old hash no longer matches
            user.save()
        else:
            user.is_active = False
            user.save()
        assert client.get("/scoring/").url.startswith("/accounts/login/"), change


def test_a_deactivated_account_s_session_stays_ended_when_it_is_active_again():
    user = rater("session-reactivated")
    client = Client()
    client.post("/accounts/login/", {"username": "session-reactivated", "password": "pw-test-123"})
    key = client.session.session_key
    assert client.get("/scoring/").status_code == 200
    user.is_active = False
    user.save()
    assert client.get("/scoring/").url.startswith("/accounts/login/")
    assert not Session.objects.filter(pk=key).exists()  # ended, not only refused
    user.is_active = True
    user.save()
    assert client.get("/scoring/").url.startswith("/accounts/login/")  # logging in again is needed


def test_a_session_missing_from_the_cache_is_read_from_the_database():
    rater("session-uncached")
    client = Client()
    client.post("/accounts/login/", {"username": "session-uncached", "password": "pw-test-123"})
    key = client.session.session_key
    cache.delete(f"django.contrib.sessions.cached_db{key}")  # evicted, or Redis restarted
    assert client.get("/scoring/").status_code == 200

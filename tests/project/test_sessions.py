"""The session store (``teamllm_web.sessions``): Django's database sessions, loaded by SQL
made once. It must load what Django's own store loads and refuse what it refuses."""

from datetime import timedelta

import pytest
from django.contrib.sessions.backends.db import SessionStore as DjangoStore
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from teamllm_web.sessions import SessionStore
from tests.factories import rater

pytestmark = pytest.mark.django_db


def _stored(data: dict) -> str:
    store = SessionStore()
    store.update(data)
    store.save()
    return store.session_key


def test_a_session_loads_as_django_s_store_loads_it():
    key = _stored({"n": 3, "text": "新的想法 'quoted'", "nested": {"a": [1, None]}})
    assert SessionStore(key).load() == DjangoStore(key).load() == {
        "n": 3, "text": "新的想法 'quoted'", "nested": {"a": [1, None]},
    }  # fmt: skip


def test_an_expired_unknown_or_tampered_session_is_empty_and_gets_no_key():
    expired = _stored({"user": 1})
    Session.objects.filter(pk=expired).update(expire_date=timezone.now() - timedelta(seconds=1))
    tampered = _stored({"user": 1})
    Session.objects.filter(pk=tampered).update(
        session_data="x" + Session.objects.get(pk=tampered).session_data
    )
    for key in (expired, "no-such-session-key-at-all-000000", tampered):
        store = SessionStore(key)
        assert store.load() == {} and DjangoStore(key).load() == {}
        if key != tampered:  # Django keeps the key of a row it found but could not decode
            assert store.session_key is None


def test_a_logged_in_rater_stays_logged_in_and_logging_out_ends_the_session(settings):
    assert settings.SESSION_ENGINE == "teamllm_web.sessions"
    rater("session-rater")
    client = Client()
    assert (
        client.post("/accounts/login/", {"username": "session-rater", "password": "pw-test-123"}).status_code
        == 302
    )
    assert client.get("/scoring/").status_code == 200 and "_auth_user_id" in client.session
    key = client.session.session_key
    client.post("/accounts/logout/")
    assert not Session.objects.filter(pk=key).exists()
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


def test_short_or_missing_session_keys_load_nothing():
    for key in (None, "", "short"):
        store = SessionStore(key)
        assert store.load() == {} and store.session_key is None


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

"""Login throttling behind proxies (issue 22, finding 6): a username is locked after
``AXES_FAILURE_LIMIT`` failures from any addresses, an address after
``AXES_ADDRESS_FAILURE_LIMIT`` failures for any usernames, and ``X-Forwarded-For`` is
believed only from a configured trusted proxy. Each test performs the attack."""

from __future__ import annotations

import pytest
from django.test import Client

from teamllm_web.auth import client_ip
from tests.factories import UserFactory

LOGIN = "/accounts/login/"
PASSWORD = "correct-horse-battery-9"
pytestmark = pytest.mark.django_db


def _try(client, username, password, **extra):
    return client.post(LOGIN, {"username": username, "password": password}, **extra).status_code


@pytest.fixture
def proxied(settings):
    """The documented set-up: one reverse proxy, on this host."""
    settings.TRUSTED_PROXY_COUNT = 1
    settings.TRUSTED_PROXIES = ["127.0.0.1", "::1", "172.16.0.0/12"]
    return settings


def test_rotating_x_forwarded_for_from_an_untrusted_peer_is_locked(proxied):
    victim = UserFactory(username="victim")
    victim.set_password(PASSWORD)
    victim.save()
    client = Client(REMOTE_ADDR="198.51.100.66")  # gunicorn reached directly, not through the proxy
    statuses = [
        _try(client, "victim", f"guess-{n}", HTTP_X_FORWARDED_FOR=f"203.0.{n // 250}.{n % 250 + 1}")
        for n in range(200)
    ]
    assert statuses[:9] == [200] * 9 and set(statuses[9:]) == {429}
    assert _try(client, "victim", PASSWORD, HTTP_X_FORWARDED_FOR="192.0.2.1") == 429


def test_rotating_addresses_through_the_trusted_proxy_still_lock_the_username(proxied):
    UserFactory(username="victim2")
    client = Client(REMOTE_ADDR="172.18.0.1")  # the proxy: every request from a "new" client
    statuses = [
        _try(client, "victim2", f"guess-{n}", HTTP_X_FORWARDED_FOR=f"203.0.113.{n + 1}") for n in range(200)
    ]
    assert statuses[:9] == [200] * 9 and set(statuses[9:]) == {429}


def test_spraying_nine_passwords_over_nine_users_from_one_address_is_locked(settings):
    assert settings.AXES_ADDRESS_FAILURE_LIMIT == 30
    users = [UserFactory(username=f"spray{n}") for n in range(9)]
    client = Client(REMOTE_ADDR="198.51.100.77")
    statuses = [_try(client, u.username, f"Password{p}!") for p in range(9) for u in users]
    assert statuses[:29] == [200] * 29 and set(statuses[29:]) == {429}
    # no username reached its own limit (9 failures each): the lock is the address's,
    # from elsewhere the right password logs in
    owner, other = users[0], users[1]
    for user in (owner, other):
        user.set_password(PASSWORD)
        user.save()
    assert _try(client, owner.username, PASSWORD) == 429
    assert _try(Client(REMOTE_ADDR="198.51.100.78"), other.username, PASSWORD) == 302


def test_logging_in_to_ones_own_account_does_not_clear_the_address(settings):
    own = UserFactory(username="attacker")
    own.set_password(PASSWORD)
    own.save()
    targets = [UserFactory(username=f"target{n}") for n in range(5)]
    client = Client(REMOTE_ADDR="198.51.100.88")
    for round_ in range(6):
        for target in targets:
            _try(client, target.username, f"guess-{round_}")
        if round_ < 5:
            assert _try(client, "attacker", PASSWORD) == 302
            client.logout()
    assert _try(client, "attacker", PASSWORD) == 429  # 30 failures from this address


def test_x_forwarded_for_is_believed_only_from_a_trusted_proxy(proxied, rf):
    forwarded = {"HTTP_X_FORWARDED_FOR": "198.51.100.9, 203.0.113.5"}
    assert client_ip(rf.get("/", REMOTE_ADDR="127.0.0.1", **forwarded)) == "203.0.113.5"
    assert client_ip(rf.get("/", REMOTE_ADDR="172.20.0.1", **forwarded)) == "203.0.113.5"
    assert client_ip(rf.get("/", REMOTE_ADDR="198.51.100.66", **forwarded)) == "198.51.100.66"
    garbage = {"HTTP_X_FORWARDED_FOR": "not-an-address"}
    assert client_ip(rf.get("/", REMOTE_ADDR="127.0.0.1", **garbage)) == "127.0.0.1"
    proxied.TRUSTED_PROXIES = []
    assert client_ip(rf.get("/", REMOTE_ADDR="127.0.0.1", **forwarded)) == "127.0.0.1"

"""Accounts: login throttling with lockout and an admin unlock (django-axes), and demo
accounts that log in only in demo mode."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client

import teamllm_web.auth
from core.accounts.roles import ADMIN, DEMO_GROUP, KNOWN_GROUPS, RATER, RESEARCHER, user_roles
from studies.models import AuditEvent
from tests.factories import rater

PASSWORD = "demo-pass-2026"
LOGIN = "/accounts/login/"


def attempt(client, username, password, **extra):
    return client.post(LOGIN, {"username": username, "password": password}, **extra)


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


@pytest.fixture
def checked_passwords(monkeypatch):
    """Counts the logins that reached a password check."""
    calls = []
    original = teamllm_web.auth.AccountBackend.authenticate

    def counting(self, request, username=None, password=None, **kwargs):
        calls.append(username)
        return original(self, request, username=username, password=password, **kwargs)

    monkeypatch.setattr(teamllm_web.auth.AccountBackend, "authenticate", counting)
    return calls


@pytest.mark.django_db
def test_fifty_wrong_passwords_lock_the_account_even_for_the_right_one(demo, settings, checked_passwords):
    assert settings.AXES_FAILURE_LIMIT == 10
    client = Client()
    statuses = [attempt(client, "rater1", f"wrong-{n}").status_code for n in range(50)]
    # the first nine are answered with the login form; the tenth failure locks
    assert statuses[:9] == [200] * 9
    assert set(statuses[9:]) == {429}
    assert len(checked_passwords) == 10  # the other 40 were never checked

    reply = attempt(client, "rater1", PASSWORD)
    assert reply.status_code == 429 and not logged_in(client)
    page = reply.content.decode()
    assert "Login locked" in page and "after 10 failed logins" in page and "Try again in 15 minutes" in page
    assert 'class="topbar"' in page  # our layout
    assert len(checked_passwords) == 10

    # the username is locked from every address; 50 failures (over AXES_ADDRESS_FAILURE_LIMIT)
    # lock this address for every username too, but not other usernames elsewhere
    assert attempt(Client(), "rater2", PASSWORD).status_code == 429
    other = Client(REMOTE_ADDR="10.9.8.7")
    assert attempt(other, "rater2", PASSWORD).status_code == 302 and logged_in(other)
    elsewhere = Client(REMOTE_ADDR="10.9.8.7")
    assert attempt(elsewhere, "rater1", PASSWORD).status_code == 429 and not logged_in(elsewhere)


@pytest.mark.django_db
def test_the_lockout_page_is_translated(demo):
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    for n in range(10):
        attempt(client, "rater1", f"wrong-{n}")
    page = attempt(client, "rater1", PASSWORD).content.decode()
    assert "登录已锁定" in page and "15" in page


@pytest.mark.django_db
def test_an_admin_lifts_a_login_lock_on_the_account_page_audited(demo):
    rater_client = Client()
    for n in range(10):
        attempt(rater_client, "rater1", f"wrong-{n}")
    assert attempt(rater_client, "rater1", PASSWORD).status_code == 429
    rater1 = get_user_model().objects.get(username="rater1")

    admin = Client()
    assert attempt(admin, "admin", PASSWORD).status_code == 302
    page = admin.get(f"/manage/accounts/{rater1.pk}/").content.decode()
    assert 'id="account-unlock"' in page and "11 failed logins" in page  # the refused right one counts
    assert admin.post(f"/manage/accounts/{rater1.pk}/unlock/").status_code == 302
    assert not AccessAttempt.objects.filter(username="rater1").exists()
    event = AuditEvent.objects.get(action="account.unlock")
    assert event.actor.username == "admin" and event.target == f"auth.user:{rater1.pk}"

    reply = attempt(rater_client, "rater1", PASSWORD)
    assert reply.status_code == 302 and logged_in(rater_client)


@pytest.mark.django_db
def test_a_rater_cannot_lift_a_lock(demo):
    for n in range(10):
        attempt(Client(), "rater2", f"wrong-{n}")
    rater2 = get_user_model().objects.get(username="rater2")
    client = Client()
    assert attempt(client, "rater1", PASSWORD).status_code == 302
    assert client.post(f"/manage/accounts/{rater2.pk}/unlock/").status_code == 403
    assert AccessAttempt.objects.filter(username="rater2").exists()


@pytest.mark.django_db
def test_a_successful_login_resets_the_failures(demo):
    client = Client()
    for n in range(9):
        attempt(client, "rater1", f"wrong-{n}")
    assert attempt(client, "rater1", PASSWORD).status_code == 302
    client.logout()
    for n in range(9):
        assert attempt(client, "rater1", f"again-{n}").status_code == 200
    assert attempt(client, "rater1", PASSWORD).status_code == 302


# --- demo accounts -------------------------------------------------------------------
DEMO_USERS = ["admin", "rater1", "rater2", "calibrator", "researcher"]


@pytest.mark.django_db
def test_seed_demo_marks_its_accounts(demo):
    demo_group = Group.objects.get(name=DEMO_GROUP)
    assert sorted(demo_group.user_set.values_list("username", flat=True)) == sorted(DEMO_USERS)


@pytest.mark.django_db
@pytest.mark.parametrize("username", DEMO_USERS)
def test_demo_accounts_cannot_log_in_outside_demo_mode(demo, settings, username):
    settings.DEMO_MODE = False  # the same database served with production settings
    client = Client()
    reply = attempt(client, username, PASSWORD)
    assert reply.status_code == 200 and not logged_in(client)
    assert "Demo accounts are disabled: this server is not in demo mode." in reply.content.decode()
    # nor through the Django admin's login, nor without a request
    from django.contrib.auth import authenticate

    assert authenticate(username=username, password=PASSWORD) is None

    settings.DEMO_MODE = True
    assert attempt(Client(), username, PASSWORD).status_code == 302


@pytest.mark.django_db
def test_a_demo_account_with_a_changed_password_is_still_refused(demo, settings):
    user = get_user_model().objects.get(username="admin")  # a superuser without a rater profile
    user.set_password("a-new-long-password-41")
    user.save()
    settings.DEMO_MODE = False
    client = Client()
    reply = attempt(client, "admin", "a-new-long-password-41")
    assert reply.status_code == 200 and not logged_in(client)
    assert "not in demo mode" in reply.content.decode()


@pytest.mark.django_db
def test_the_demo_password_opens_no_account_outside_demo_mode(settings):
    """Demo users seeded before they were marked still carry the published password."""
    settings.DEMO_MODE = False
    unmarked = rater("old-demo-rater", "H07")
    unmarked.set_password(PASSWORD)
    unmarked.save()
    client = Client()
    assert attempt(client, "old-demo-rater", PASSWORD).status_code == 200 and not logged_in(client)
    unmarked.set_password("own-password-8812")
    unmarked.save()
    assert attempt(client, "old-demo-rater", "own-password-8812").status_code == 302


@pytest.mark.django_db
def test_a_demo_session_ends_when_demo_mode_is_off(demo, settings):
    client = Client()
    assert attempt(client, "rater1", PASSWORD).status_code == 302
    assert client.get("/scoring/").status_code == 200
    settings.DEMO_MODE = False
    reply = client.get("/scoring/")
    assert reply.status_code == 302 and reply["Location"].startswith(LOGIN)


@pytest.mark.django_db
def test_other_accounts_log_in_outside_demo_mode(settings):
    settings.DEMO_MODE = False
    rater("own-rater", "H08")  # password pw-test-123
    client = Client()
    assert attempt(client, "own-rater", "pw-test-123").status_code == 302 and logged_in(client)
    assert attempt(Client(), "own-rater", "nope").status_code == 200


def test_throttling_counts_the_client_address_behind_trusted_proxies(settings, rf):
    from teamllm_web.auth import client_ip

    request = rf.get("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.9, 203.0.113.5")
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    settings.TRUSTED_PROXY_COUNT = 0
    assert client_ip(request) == "10.0.0.1"  # no proxy trusted: a client cannot choose its address
    settings.TRUSTED_PROXY_COUNT = 1
    assert client_ip(request) == "203.0.113.5"  # the address our one proxy saw
    settings.TRUSTED_PROXY_COUNT = 3
    assert client_ip(request) == "10.0.0.1"  # fewer hops than proxies: not trusted


def test_a_local_proxy_the_settings_do_not_name_is_logged_once(settings, rf, caplog):
    """Hostile pass 24: behind a proxy with TRUSTED_PROXIES unset every client counts as the
    proxy (30 failed logins from anyone lock everyone out), and nothing said so."""
    from teamllm_web import auth

    settings.TRUSTED_PROXIES, settings.TRUSTED_PROXY_COUNT = [], 1
    auth._UNNAMED_PROXIES.discard("172.18.0.7")
    caplog.set_level("WARNING", logger="teamllm_web.auth")
    behind = rf.get("/", REMOTE_ADDR="172.18.0.7", HTTP_X_FORWARDED_FOR="203.0.113.5")
    assert auth.client_ip(behind) == auth.client_ip(behind) == "172.18.0.7"
    auth.client_ip(rf.get("/", REMOTE_ADDR="100.64.3.4", HTTP_X_FORWARDED_FOR="203.0.113.5"))  # shared space
    assert sum("100.64.3.4" in r.getMessage() for r in caplog.records) == 1
    auth._UNNAMED_PROXIES.discard("100.64.3.4")

    def warned():
        return [
            r.getMessage()
            for r in caplog.records
            if "from 172.18.0.7 carry X-Forwarded-For" in r.getMessage()
        ]

    assert len(warned()) == 1  # once per process
    # a client on the internet sending the header itself, and a proxy that is named: no line
    auth.client_ip(rf.get("/", REMOTE_ADDR="93.184.216.34", HTTP_X_FORWARDED_FOR="203.0.113.5"))
    assert not any("93.184.216.34" in r.getMessage() for r in caplog.records)
    settings.TRUSTED_PROXIES = ["172.16.0.0/12"]
    auth._UNNAMED_PROXIES.discard("172.18.0.7")
    assert auth.client_ip(behind) == "203.0.113.5"
    assert len(warned()) == 1
    # named, but no hop counted: the same as not named
    settings.TRUSTED_PROXY_COUNT = 0
    auth._UNNAMED_PROXIES.discard("172.18.0.7")
    assert auth.client_ip(behind) == "172.18.0.7"
    assert len(warned()) == 2


@pytest.mark.django_db
def test_the_roles_are_the_users_known_groups_and_cached_between_requests(django_assert_num_queries):
    """Every request reads the user with the rater profile in one query; the roles (the
    user's known groups) are read once, then come from the cache."""
    backend = teamllm_web.auth.AccountBackend()
    groups = {name: Group.objects.get_or_create(name=name)[0] for name in (*KNOWN_GROUPS, "Other lab")}
    cases = {
        "roles-none": [],
        "roles-rater": [RATER],
        "roles-two": [RATER, RESEARCHER],
        "roles-other": ["Other lab", RESEARCHER],
        "roles-all-but-demo": [ADMIN, RATER, RESEARCHER],
    }
    for username, names in cases.items():
        user = rater(username) if RATER in names else get_user_model().objects.create_user(username)
        user.groups.set([groups[name] for name in names])
        with django_assert_num_queries(2):  # the user with the profile; the roles, first time
            loaded = backend.get_user(user.pk)
            roles = user_roles(loaded)
            _ = getattr(loaded, "rater_profile", None)  # read with the user, no query of its own
        assert roles == set(names) - {"Other lab"}, username
        with django_assert_num_queries(1):  # the next request: the user; the roles are cached
            assert user_roles(backend.get_user(user.pk)) == roles
    boss = get_user_model().objects.create_superuser("roles-super", password="x-long-password-1")
    assert user_roles(backend.get_user(boss.pk)) == {ADMIN}
    assert backend.get_user(10**9) is None  # no such user


@pytest.mark.django_db
def test_a_change_of_groups_reaches_the_next_request():
    """The cached roles are dropped when the user's groups change (from either side), a
    group is renamed or deleted, or the user is saved or deleted."""
    backend = teamllm_web.auth.AccountBackend()
    researcher = Group.objects.get_or_create(name=RESEARCHER)[0]
    admin = Group.objects.get_or_create(name=ADMIN)[0]
    user = get_user_model().objects.create_user("roles-change", password="x-long-password-1")

    def roles() -> set[str]:
        return user_roles(backend.get_user(user.pk))

    assert roles() == set()
    user.groups.add(researcher)
    assert roles() == {RESEARCHER}
    admin.user_set.add(user)  # the reverse side
    assert roles() == {RESEARCHER, ADMIN}
    user.groups.remove(admin)
    assert roles() == {RESEARCHER}
    researcher.user_set.clear()
    assert roles() == set()
    user.groups.set([researcher])
    assert roles() == {RESEARCHER}
    researcher.name = "Former researchers"
    researcher.save()
    assert roles() == set()
    researcher.name = RESEARCHER
    researcher.save()
    assert roles() == {RESEARCHER}
    researcher.delete()
    assert roles() == set()
    user.is_superuser = True
    user.save()
    assert roles() == {ADMIN}


@pytest.mark.django_db
def test_a_deactivated_user_is_not_the_user_of_a_request():
    user = rater("inactive-user", "H42")
    assert teamllm_web.auth.AccountBackend().get_user(user.pk).rater_profile.rater_code == "H42"
    user.is_active = False
    user.save()
    assert teamllm_web.auth.AccountBackend().get_user(user.pk) is None

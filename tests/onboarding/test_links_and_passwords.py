"""Issue 22, finding 7 (invitation links and passwords): a new link revokes the old one;
every unusable link answers the same, throttled per address; links are mailed only by a
backend that delivers (never written to the log outside demo mode); Django's password
validators on every path where a password is chosen."""

import getpass
import io
import logging
import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from core.accounts.roles import ADMIN
from onboarding.csv_files import invitees_from_csv
from onboarding.models import Invitation
from onboarding.services import invitation_link_renew, raters_invite
from studies.models import AuditEvent, Study
from teamllm_web.cache import redis_cache
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
User = get_user_model()
CSV = b"username,name,email,language,roles\njane.doe.rater,Jane Doe,jane@lab.example.org,en,rater\n"
WEAK = [
    "r5r5r5r5",
    "Summer2026",
    "demo-pass-2026",
    "demo-pass-2026!",  # the published one with a suffix
    "jane.doe.rater1",
    "Jane.Doe.Rater-Jane.Doe.Rater",  # repeats the username (Django's similarity lets it through)
    "123456789012345",
    "password1234",
    # hostile pass 13: the published one with another year, a keyboard walk, a word and a year
    "demo-pass-2027",
    "ZAQ!2wsxCDE#",
    "Teamllm2026!!",
    "Summer2026!!!",
    "Welcome2026!!",
    # hostile pass 26: the published one reordered, backwards, or with digits for letters
    "2026-pass-demo-zzz",
    "ssap-omed-6202-xyz",
    "d3m0-p4ss-2026-qz",
]
GOOD = "Tide-pool-2035"


def _build(uidb64, token):
    return f"http://testserver{reverse('onboarding:link', args=[uidb64, token])}"


def _path(link):
    return link.split("testserver", 1)[1]


@pytest.fixture
def invited():
    study = Study.objects.create(name="Lab")
    [link] = raters_invite(
        study=study, invitees=invitees_from_csv(CSV), actor=None, link_for=_build, email=False
    )
    return User.objects.get(username="jane.doe.rater"), _path(link.link)


def _set_password_url(link_path):
    return reverse("onboarding:set_password", args=[link_path.split("/")[3]])


def test_a_new_link_revokes_the_previous_one(client, invited):
    user, old = invited
    invitation = Invitation.objects.get(user=user)
    new = _path(invitation_link_renew(invitation_id=invitation.pk, link_for=_build, email=False).link)
    assert new != old
    assert client.get(old).status_code == 400  # the old link no longer works
    reply = client.get(new)
    assert reply.status_code == 302 and reply.url == _set_password_url(new)
    assert AuditEvent.objects.filter(action="account.link", target=f"auth.user:{user.pk}").exists()


def test_an_old_link_kept_in_the_session_stops_working_too(client, invited):
    user, old = invited
    assert client.get(old).status_code == 302  # its token is now in the session
    invitation_link_renew(invitation_id=Invitation.objects.get(user=user).pk, link_for=_build, email=False)
    set_url = _set_password_url(old)
    assert client.get(set_url).status_code == 400
    assert client.post(set_url, {"new_password1": GOOD, "new_password2": GOOD}).status_code == 400
    assert not User.objects.get(pk=user.pk).has_usable_password()


def _without_tokens(reply):
    """The page without its per-response CSRF token and CSP nonce."""
    return re.sub(r'(nonce="|value="|X-CSRFToken": ")[^"]+"', r"\1…", reply.content.decode())


def test_every_unusable_link_answers_the_same(client, invited):
    """No enumeration: an unknown user id, an account with or without a password, a
    forged, used or expired token: one status, one page."""
    user, link = invited
    with_password = UserFactory(username="has-pass")
    pages = []
    for uid in (user.pk, with_password.pk, 10**9):
        uidb64 = urlsafe_base64_encode(force_bytes(uid))
        for url in (
            reverse("onboarding:link", args=[uidb64, "abc-0123456789abcdef"]),
            reverse("onboarding:set_password", args=[uidb64]),
        ):
            reply = client.get(url)
            pages.append((reply.status_code, _without_tokens(reply)))
    # a used link: the page of a forged one
    client.get(link)
    client.post(_set_password_url(link), {"new_password1": GOOD, "new_password2": GOOD})
    client.logout()
    used = client.get(link)
    pages.append((used.status_code, _without_tokens(used)))
    assert {status for status, _ in pages} == {400}
    assert len({page for _, page in pages}) == 1
    assert "This link cannot be used" in pages[0][1]


def test_unusable_links_are_throttled_per_address(client, invited, settings):
    settings.INVITATION_LINK_FAILURE_LIMIT = 3
    # django-ratelimit's windows are fixed: a day's makes crossing into the next one in this test
    # practically impossible
    settings.INVITATION_LINK_FAILURE_WINDOW = timedelta(days=1)
    _user, link = invited
    forged = reverse("onboarding:link", args=["MQ", "abc-def"])
    # an OPTIONS opens no link and counts no failure (hostile pass 24: it counted)
    assert [client.options(forged).status_code for _ in range(5)] == [405] * 5
    assert [client.get(forged).status_code for _ in range(3)] == [400, 400, 400]
    blocked = client.get(forged)
    assert blocked.status_code == 429 and "Too many invalid links" in blocked.content.decode()
    # the page says when this window ends (at most the window's length away)
    minutes = int(re.search(r"Try again in (\d+) minutes", blocked.content.decode()).group(1))
    assert 1 <= minutes <= 24 * 60
    assert client.get(link).status_code == 429  # even a good link, from this address
    # another address is not blocked
    assert client.get(link, REMOTE_ADDR="203.0.113.7").status_code == 302


def test_an_ipv6_client_is_counted_by_its_64_block(client, invited, settings):
    """A client holding a /64 cannot take a fresh budget from each of its 2^64 addresses."""
    settings.INVITATION_LINK_FAILURE_LIMIT = 3
    settings.INVITATION_LINK_FAILURE_WINDOW = timedelta(days=1)
    _user, link = invited
    forged = reverse("onboarding:link", args=["MQ", "abc-def"])
    statuses = [client.get(forged, REMOTE_ADDR=f"2001:db8:1:2::{n}").status_code for n in range(1, 4)]
    assert statuses == [400, 400, 400]
    assert client.get(link, REMOTE_ADDR="2001:db8:1:2:ffff::9").status_code == 429  # the same /64
    assert client.get(link, REMOTE_ADDR="2001:db8:1:3::1").status_code == 302  # the next /64


def _as_mapped(address: str) -> dict:
    return {"REMOTE_ADDR": f"::ffff:{address}"}  # IPv4 as a server bound to [::] sees it


def _behind_proxy(address: str) -> dict:
    return {"REMOTE_ADDR": "127.0.0.1", "HTTP_X_FORWARDED_FOR": address}


def _behind_proxy_mapped(address: str) -> dict:
    return {"REMOTE_ADDR": "127.0.0.1", "HTTP_X_FORWARDED_FOR": f"::ffff:{address}"}


@pytest.mark.parametrize("meta", [_as_mapped, _behind_proxy, _behind_proxy_mapped])
def test_the_count_is_the_clients_own_behind_the_proxy_and_as_ipv6(client, invited, settings, meta):
    """The count goes by the address django-axes counts (the client behind a trusted proxy, not
    the proxy), and an IPv4 client written as IPv6 by itself: never in the /64 that would put
    every IPv4 client in one count. Its neighbour, reaching the site the same way, is not held."""
    settings.INVITATION_LINK_FAILURE_LIMIT = 2
    settings.INVITATION_LINK_FAILURE_WINDOW = timedelta(days=1)
    settings.TRUSTED_PROXY_COUNT = 1
    settings.TRUSTED_PROXIES = ["127.0.0.1"]
    _user, link = invited
    forged = reverse("onboarding:link", args=["MQ", "abc-def"])
    assert [client.get(forged, **meta("198.51.100.7")).status_code for _ in range(2)] == [400, 400]
    assert client.get(link, **meta("198.51.100.7")).status_code == 429
    assert client.get(link, **meta("198.51.100.8")).status_code == 302


def test_a_request_without_an_address_is_counted_not_refused_with_a_500(client, settings):
    settings.INVITATION_LINK_FAILURE_LIMIT = 2
    forged = reverse("onboarding:link", args=["MQ", "abc-def"])
    for address in ("", "not an address", "fe80::1%eth0"):
        assert client.get(forged, REMOTE_ADDR=address).status_code in (400, 429)


def test_links_work_and_nothing_is_throttled_with_the_cache_away(client, invited, settings):
    """The failures count in Redis; with Redis away (django-redis ignores its errors) nothing
    is counted and nothing refused: forged links still answer 400, a good link still works."""
    settings.INVITATION_LINK_FAILURE_LIMIT = 2
    settings.CACHES = {"default": redis_cache(url="redis://127.0.0.1:1/0", prefix="away", timeout=0.2)}
    _user, link = invited
    forged = reverse("onboarding:link", args=["MQ", "abc-def"])
    assert [client.get(forged).status_code for _ in range(5)] == [400] * 5
    assert client.get(link).status_code == 302


def test_no_mail_and_no_link_in_the_log_with_the_console_backend(settings, capsys, caplog, tmp_path):
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
    settings.DEMO_MODE = False
    Study.objects.create(name="Lab")
    path = tmp_path / "p.csv"
    path.write_bytes(CSV)
    call_command("invite_raters", str(path), "--study", "Lab")
    out = capsys.readouterr()
    link = out.out.split("\t")[1].strip()
    assert "/accounts/invite/" in link
    assert link not in out.err and link not in caplog.text  # the console mail was not written
    assert "Not emailed" in out.err
    assert Invitation.objects.get().emailed_at is None


def test_in_demo_mode_the_console_backend_prints_the_mail(settings, capsys):
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
    settings.DEMO_MODE = True
    study = Study.objects.create(name="Lab")
    [link] = raters_invite(study=study, invitees=invitees_from_csv(CSV), actor=None, link_for=_build)
    assert link.link in capsys.readouterr().out
    assert link.emailed is False  # printed is not delivered


def test_the_links_page_says_emailed_only_when_a_backend_delivered(client, settings):
    study = Study.objects.create(name="Lab")
    client.force_login(UserFactory(username="boss", role=ADMIN))
    url = reverse("onboarding:invite", args=[study.pk])
    from django.core.files.uploadedfile import SimpleUploadedFile

    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
    page = client.post(url, {"file": SimpleUploadedFile("p.csv", CSV), "send_email": "on"}).content.decode()
    assert "Not emailed: hand the link over yourself" in page and 'id="no-mail"' in page
    assert 'class="emailed-yes"' not in page and not mail.outbox
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    other = CSV.replace(b"jane.doe.rater", b"ann.other").replace(b"jane@", b"ann@")
    page = client.post(url, {"file": SimpleUploadedFile("p.csv", other), "send_email": "on"}).content.decode()
    assert 'class="emailed-yes"' in page and 'id="no-mail"' not in page
    assert [m.to for m in mail.outbox] == [["ann@lab.example.org"]]


@pytest.mark.parametrize("password", WEAK)
def test_the_invitation_page_refuses_weak_passwords(client, invited, password):
    user, link = invited
    client.get(link)
    reply = client.post(_set_password_url(link), {"new_password1": password, "new_password2": password})
    assert reply.status_code == 200 and 'class="errorlist' in reply.content.decode()
    assert not User.objects.get(pk=user.pk).has_usable_password()


def test_the_invitation_page_accepts_a_good_password(client, invited):
    user, link = invited
    client.get(link)
    reply = client.post(_set_password_url(link), {"new_password1": GOOD, "new_password2": GOOD})
    assert reply.status_code == 302 and User.objects.get(pk=user.pk).check_password(GOOD)
    [event] = AuditEvent.objects.filter(action="invitation.accept")
    assert event.actor == user and event.study.name == "Lab" and GOOD not in str(event.changes)


def test_the_messages_say_why(client, invited):
    _user, link = invited
    client.get(link)
    url = _set_password_url(link)
    for password, message in (
        ("r5r5r5r5", "at least 12 characters"),
        ("demo-pass-2026", "published in the documentation"),
        ("jane.doe.rater1", "too similar to the username"),
        ("xx-jane.doe.rater-jane.doe.rater", "cannot contain the username"),
        # fullwidth letters read as what they look like (NFKC), hostile pass 15
        ("xx-ｊａｎｅ.ｄｏｅ.ｒａｔｅｒ-Lantern-orbit", "cannot contain the username"),
        ("ｄｅｍｏ-ｐａｓｓ-2031-lantern", "published in the documentation"),
        ("Lantern-2026-pass-demo-zzz", "published in the documentation"),
        ("ssap-omed-6202-xyz-Lantern", "published in the documentation"),
        ("D3m0-P4ss-2026-qz-Lantern", "published in the documentation"),
        ("123456789012345", "entirely numeric"),
        ("password1234", "too common"),
    ):
        page = client.post(url, {"new_password1": password, "new_password2": password}).content.decode()
        assert message in page.replace("&#x27;", "'"), password


@pytest.mark.parametrize("password", WEAK)
def test_the_password_change_page_refuses_weak_passwords(client, password):
    user = UserFactory(username="jane.doe.rater", password="Old-password-2020")
    client.force_login(user)
    reply = client.post(
        reverse("password_change"),
        {"old_password": "Old-password-2020", "new_password1": password, "new_password2": password},
    )
    assert reply.status_code == 200
    assert User.objects.get(pk=user.pk).check_password("Old-password-2020")
    good = client.post(
        reverse("password_change"),
        {"old_password": "Old-password-2020", "new_password1": GOOD, "new_password2": GOOD},
    )
    assert good.status_code == 302 and User.objects.get(pk=user.pk).check_password(GOOD)
    [event] = AuditEvent.objects.filter(action="account.password_change")
    assert event.actor == user and GOOD not in str(event.changes) + event.target


def test_changepassword_refuses_weak_passwords(monkeypatch):
    user = UserFactory(username="jane.doe.rater", password="Old-password-2020")
    monkeypatch.setattr(getpass, "getpass", lambda prompt="": "demo-pass-2026")
    with pytest.raises(CommandError, match="Aborting password change"):
        call_command("changepassword", "jane.doe.rater")
    assert User.objects.get(pk=user.pk).check_password("Old-password-2020")
    monkeypatch.setattr(getpass, "getpass", lambda prompt="": GOOD)
    call_command("changepassword", "jane.doe.rater")
    assert User.objects.get(pk=user.pk).check_password(GOOD)


def test_createsuperuser_refuses_weak_passwords_interactively(monkeypatch):
    answers = iter(["Summer2026", "Summer2026", GOOD, GOOD])
    monkeypatch.setattr(getpass, "getpass", lambda prompt="": next(answers))
    monkeypatch.setattr("builtins.input", lambda prompt="": "N")  # do not bypass the validation
    err = io.StringIO()
    call_command(
        "createsuperuser",
        username="root",
        email="root@example.org",
        interactive=True,
        stdin=_Tty(),
        stderr=err,
    )
    assert "too short" in err.getvalue()
    assert User.objects.get(username="root").check_password(GOOD)


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_the_server_log_never_holds_an_invitation_token(client, invited, settings):
    """Django logs every 4xx with its path; a throttled answer to a link that still
    works would write a usable token to the log. The log handlers redact it."""
    from onboarding.logs import InvitationTokenFilter

    settings.INVITATION_LINK_FAILURE_LIMIT = 1
    settings.INVITATION_LINK_FAILURE_WINDOW = timedelta(days=1)
    _user, link = invited
    token = link.rstrip("/").rsplit("/", 1)[1]
    [console] = [
        h
        for h in logging.getLogger().handlers
        if any(isinstance(f, InvitationTokenFilter) for f in h.filters)
        and isinstance(h, logging.StreamHandler)
    ]
    stream = io.StringIO()
    old = console.setStream(stream)
    try:
        client.get(reverse("onboarding:link", args=["MQ", "abc-0123456789abcdef"]))
        assert client.get(link).status_code == 429  # the good link, throttled: logged as a 4xx
    finally:
        console.setStream(old)
    logged = stream.getvalue()
    assert "Too Many Requests" in logged and "/accounts/invite/" in logged and "[token]" in logged
    assert token not in logged and "abc-0123456789abcdef" not in logged


def test_the_accept_service_itself_validates(invited):
    from django.core.exceptions import ValidationError

    from onboarding.services import invitation_accept

    user, _link = invited
    with pytest.raises(ValidationError):
        invitation_accept(user=user, password="demo-pass-2026")
    assert not User.objects.get(pk=user.pk).has_usable_password()
    assert Invitation.objects.get(user=user).accepted_at is None


def test_the_invitations_language_carries_through_set_password_and_login(client):
    study = Study.objects.create(name="Lab zh")
    csv = b"username,name,email,language,roles\nwang.li,Wang Li,wang@lab.example.org,zh-hans,rater\n"
    [link] = raters_invite(
        study=study, invitees=invitees_from_csv(csv), actor=None, link_for=_build, email=False
    )
    path = _path(link.link)
    page = client.get(client.get(path)["Location"])
    assert 'lang="zh-hans"' in page.content.decode()
    reply = client.post(
        _set_password_url(path), {"new_password1": "Coral-reef-2035", "new_password2": "Coral-reef-2035"}
    )
    assert reply.status_code == 302
    login = client.get(reply["Location"]).content.decode()
    assert 'lang="zh-hans"' in login and "登录" in login


# --- issue 36, findings 5 and 6 ---------------------------------------------------------------

GUESSABLE = [
    "aaaaaaaaaaaa",
    # fullwidth letters: zxcvbn saw no word or keyboard row in them before NFKC (hostile pass 15)
    "ｐａｓｓｗｏｒｄｓｕｎｓｈｉｎｅ",
    "ｑｗｅｒｔｙｕｉｏｐａｓｄ",
    "ｉｌｏｖｅｙｏｕｓｏｍｕｃｈ",
    "abcabcabcabc",
    "abcdefghijkl",
    "zzzzzzzzzzzzzzzz",
    "111111111111a",
    "teamllmteamllm",
]


@pytest.mark.parametrize("password", GUESSABLE)
def test_guessable_passwords_are_refused_with_what_would_pass(client, invited, password):
    """Long enough for Django's own validators, but a repeat, a sequence or the product's
    name: zxcvbn refuses them, and the page says what passes."""
    user, link = invited
    client.get(link)
    reply = client.post(_set_password_url(link), {"new_password1": password, "new_password2": password})
    page = reply.content.decode().replace("&#x27;", "'")
    assert reply.status_code == 200 and "too guessable" in page
    assert "What passes: three or four unrelated words" in page
    assert not User.objects.get(pk=user.pk).has_usable_password()


@pytest.mark.parametrize("password", ["teamllm-web-2026", "teamllm.web.2026", "cgpst-teamllm-2026"])
def test_the_sites_own_names_and_a_year_are_refused(client, invited, password):
    """Hostile pass 16 (F7): the product's name, a separator and the year scored 4 in zxcvbn (it
    knows years up to 2019 and scores each product word as one guess)."""
    user, link = invited
    client.get(link)
    reply = client.post(_set_password_url(link), {"new_password1": password, "new_password2": password})
    page = reply.content.decode().replace("&#x27;", "'")
    assert reply.status_code == 200
    assert "too guessable" in page or "this site's names, years and signs" in page
    assert "What passes: three or four unrelated words" in page
    assert not User.objects.get(pk=user.pk).has_usable_password()


@pytest.mark.parametrize(
    "password",
    [
        "jane.doe.2026",
        "Jane.Doe.2026!",
        "Doe-Jane-1990",
        "rater-jane-doe-2026",
        "J4ne-D0e-2026",
        "j@ne.d0e.1999",
    ],
)
def test_the_accounts_own_name_and_a_year_are_refused(client, invited, password):
    """Hostile pass 20 (F6): zxcvbn got the account's details whole ("jane.doe@lab.example") and
    scored the name, a separator and a year 4."""
    user, link = invited
    client.get(link)
    reply = client.post(_set_password_url(link), {"new_password1": password, "new_password2": password})
    page = reply.content.decode().replace("&#x27;", "'")
    assert reply.status_code == 200
    assert "made of your own name" in page or "too guessable" in page or "too similar to the" in page
    assert not User.objects.get(pk=user.pk).has_usable_password()


def test_what_passes_is_said_in_chinese_too(client, invited):
    _user, link = invited
    client.get(link)
    client.cookies["django_language"] = "zh-hans"
    page = client.post(
        _set_password_url(link), {"new_password1": "abcdefghijkl", "new_password2": "abcdefghijkl"}
    ).content.decode()
    assert "可以通过" in page and "lantern-orbit-mango-tide" in page
    assert "Your password is too guessable" not in page  # zxcvbn's own advice in Chinese too


@pytest.mark.parametrize(
    "example",
    [
        "lantern-orbit-mango-tide",
        "Lantern Orbit Mango Tide",
        "correct horse battery staple",
        "Tr0ub4dor&3Tr0ub4dor&3",
    ],
)
def test_a_published_example_is_refused(client, invited, example):
    """Hostile pass 19: the page's own example of what passes, and xkcd's, were accepted."""
    user, link = invited
    client.get(link)
    reply = client.post(_set_password_url(link), {"new_password1": example, "new_password2": example})
    assert "a published example" in reply.content.decode()
    assert not User.objects.get(pk=user.pk).check_password(example)


def test_words_of_ones_own_like_the_example_pass(client, invited):
    user, link = invited
    client.get(link)
    own = "pebble-violin-harbor-quartz"
    reply = client.post(_set_password_url(link), {"new_password1": own, "new_password2": own})
    assert reply.status_code == 302 and User.objects.get(pk=user.pk).check_password(own)


def test_deactivation_revokes_the_link_for_good(client, invited):
    """The exploit: deactivate an invited account; its link still set a password, which
    logged in after the reactivation. Now the link is dead while deactivated and after."""
    from onboarding.services import account_active_set

    user, link = invited
    boss = UserFactory(username="boss", role=ADMIN, is_staff=True)
    account_active_set(actor=boss, user_id=user.pk, active=False, reason="left the lab")
    event = AuditEvent.objects.get(action="account.deactivate", target=f"auth.user:{user.pk}")
    assert event.changes["links_revoked"] == 1
    assert client.get(link).status_code == 400
    account_active_set(actor=boss, user_id=user.pk, active=True)
    assert client.get(link).status_code == 400  # reactivation does not bring the old link back
    set_url = _set_password_url(link)
    assert client.post(set_url, {"new_password1": GOOD, "new_password2": GOOD}).status_code == 400
    assert not User.objects.get(pk=user.pk).has_usable_password()

    fresh = _path(
        invitation_link_renew(
            invitation_id=Invitation.objects.get(user=user).pk, link_for=_build, email=False
        ).link
    )
    assert client.get(fresh).status_code == 302  # a new link works
    assert (
        client.post(_set_password_url(fresh), {"new_password1": GOOD, "new_password2": GOOD}).status_code
        == 302
    )
    assert User.objects.get(pk=user.pk).check_password(GOOD)


def test_a_link_opened_before_the_deactivation_stops_in_the_session_too(client, invited):
    from onboarding.services import account_active_set

    user, link = invited
    assert client.get(link).status_code == 302  # the token is in the session now
    account_active_set(
        actor=UserFactory(username="boss", role=ADMIN, is_staff=True), user_id=user.pk, active=False
    )
    reply = client.post(_set_password_url(link), {"new_password1": GOOD, "new_password2": GOOD})
    assert reply.status_code == 400 and not User.objects.get(pk=user.pk).has_usable_password()


def test_the_accounts_page_says_the_link_was_revoked(client, invited):
    from onboarding.services import account_active_set

    user, _link = invited
    boss = UserFactory(username="boss", role=ADMIN, is_staff=True)
    account_active_set(actor=boss, user_id=user.pk, active=False)
    client.force_login(boss)
    page = client.get(reverse("onboarding:account", args=[user.pk])).content.decode()
    assert "Link revoked (account deactivated)" in page

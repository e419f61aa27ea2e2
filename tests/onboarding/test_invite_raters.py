"""Inviting raters by CSV: all-or-nothing with line numbers, one-time set-password links
(Django's token machinery), emails through the configured backend, no admin sees a password."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from onboarding.models import Invitation
from onboarding.tokens import invitation_tokens
from scoring.models import RaterProfile
from studies.models import Study
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
User = get_user_model()

GOOD = (
    "username,name,email,language,roles,rater_code\n"
    "wang.li,Wang Li,wang.li@lab.example.org,zh-hans,rater,H01\n"
    "jane,Jane Doe,jane@lab.example.org,en,rater|calibrator,H03\n"
    "res,Rae Search,rae@lab.example.org,,researcher,\n"
)


@pytest.fixture
def study():
    return Study.objects.create(name="Lab")


def _csv(tmp_path, text, encoding="utf-8", name="people.csv"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return str(path)


def _invite(tmp_path, text, capsys, **kw):
    call_command("invite_raters", _csv(tmp_path, text, **kw), "--study", "Lab")
    return dict(line.split("\t") for line in capsys.readouterr().out.splitlines())


def test_command_creates_people_without_password_and_prints_one_link_each(study, tmp_path, capsys):
    links = _invite(tmp_path, GOOD, capsys)
    assert set(links) == {"wang.li", "jane", "res"}
    assert all(link.startswith("http://127.0.0.1:8000/accounts/invite/") for link in links.values())
    wang = User.objects.get(username="wang.li")
    assert (
        not wang.has_usable_password()
        and wang.email == "wang.li@lab.example.org"
        and wang.first_name == "Wang Li"
    )
    assert list(wang.groups.values_list("name", flat=True)) == ["Rater"]
    assert (wang.rater_profile.rater_code, wang.rater_profile.language, wang.rater_profile.can_calibrate) == (
        "H01",
        "zh-hans",
        False,
    )
    assert RaterProfile.objects.get(rater_code="H03").can_calibrate
    assert list(User.objects.get(username="res").groups.values_list("name", flat=True)) == ["Researcher"]
    assert Invitation.objects.filter(study=study, accepted_at__isnull=True).count() == 3
    # one mail each, in the invitee's language, carrying their link
    by_recipient = {m.to[0]: m for m in mail.outbox}
    assert links["wang.li"] in by_recipient["wang.li@lab.example.org"].body
    assert "用户名" in by_recipient["wang.li@lab.example.org"].body
    assert "Your username is jane" in by_recipient["jane@lab.example.org"].body


def test_links_for_this_machine_only_are_said_so(study, tmp_path, capsys):
    """Issue 42: without --base-url the links pointed at 127.0.0.1:8000 without a word."""
    call_command("invite_raters", _csv(tmp_path, GOOD), "--study", "Lab", "--no-email")
    err = capsys.readouterr().err
    assert "only this machine can open them" in err and "--base-url" in err
    User.objects.all().delete()
    out = io.StringIO()
    call_command(
        "invite_raters", _csv(tmp_path, GOOD), "--study", "Lab", "--no-email",
        "--base-url", "https://scoring.lab.example.org/", stdout=out,
    )  # fmt: skip
    assert "only this machine" not in capsys.readouterr().err
    assert all(line.split("\t")[1].startswith("https://scoring.lab.example.org/accounts/invite/")
               for line in out.getvalue().splitlines())  # fmt: skip


def test_excel_semicolon_csv_with_bom_is_read(study, tmp_path, capsys):
    text = "\ufeffUsername;Name;E-mail;UI language;Roles;Rater ID\r\nli;Li Hua;li@lab.example.org;zh-hans;rater;H07\r\n"
    links = _invite(tmp_path, text, capsys)
    assert list(links) == ["li"]
    assert RaterProfile.objects.get(user__username="li").rater_code == "H07"


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "username,name,email,language,roles\nbob,Bob,bob@x.org,en,rater\nBob,Bobby,bob2@x.org,en,rater\n",
            ["line 3, username: Bob is already on line 2"],
        ),
        (
            "username,name,email,language,roles\nbob,bob@x.org,Bob,en,rater\n",
            ["line 2, email: 'Bob': not an email address; column name holds one: are the columns shifted?"],
        ),
        (
            "username,name,email,language,roles\nbob,Bob,bob@x.org,en,rater|boss\nann,Ann,ann@x.org,fr,rater\n",
            [
                "line 2, roles: unknown role(s) boss (known: rater, calibrator, researcher, admin)",
                "line 3, language: 'fr' is not en or zh-hans",
            ],
        ),
        (
            "username,name,email,language,roles,rater_code\nbob,Bob,bob@x.org,en,rater,H01\nann,Ann,ann@x.org,en,researcher,h01\n",
            [
                "line 3, rater_code: h01 is already on line 2",
                "line 3, rater_code: only raters have a rater code",
            ],
        ),
        ("username,name,mail,roles\nbob,Bob,bob@x.org,rater\n", ["line 1, language: column missing"]),
        (  # hostile pass 12: the second username silently won
            "username,name,email,language,roles,username\nu1,U,u@x.org,en,rater,u3\n",
            ["line 1, username: column given twice"],
        ),
        ("", ["The file is empty"]),
        (  # hostile pass 16: a 500 on PostgreSQL (the column holds 254), stored as-is on SQLite
            f"username,name,email,language,roles\nux2,N,{'e' * 300}@example.org,en,rater\n",
            ["line 2, email: longer than 254 characters"],
        ),
        (  # hostile pass 16: read as Django's forms read it (NFKC), "ｊａｎｅ" is jane, twice here
            "username,name,email,language,roles\njane,J,j@x.org,en,rater\nｊａｎｅ,J2,j2@x.org,en,rater\n",
            ["line 3, username: jane is already on line 2"],
        ),
    ],
)
def test_bad_csv_lists_every_problem_with_its_line_and_invites_nobody(study, tmp_path, text, expected):
    with pytest.raises(CommandError) as excinfo:
        call_command("invite_raters", _csv(tmp_path, text), "--study", "Lab")
    for part in expected:
        assert part in str(excinfo.value)
    assert not User.objects.exists() and not Invitation.objects.exists() and not mail.outbox


def test_people_who_already_exist_are_refused_with_their_line(study, tmp_path):
    UserFactory(username="jane")
    UserFactory(username="someone", email="wang.li@lab.example.org")
    with pytest.raises(CommandError) as excinfo:
        call_command("invite_raters", _csv(tmp_path, GOOD), "--study", "Lab")
    assert "line 3, username: a user 'jane' already exists" in str(excinfo.value)
    assert "line 2, email: another user already has wang.li@lab.example.org" in str(excinfo.value)
    assert User.objects.count() == 2 and not Invitation.objects.exists()


def test_one_pass_lists_the_lines_roles_and_existing_people_together(study, tmp_path, client):
    """Issue 42: a bad line, a role pair that crosses the blind and an existing user came in two
    rounds (the second only once the file's lines were fixed)."""
    UserFactory(username="jane")
    text = GOOD + "bad name!,X,not-an-email,en,rater,\nboth,B,both@lab.example.org,,rater|researcher,\n"
    with pytest.raises(CommandError) as excinfo:
        call_command("invite_raters", _csv(tmp_path, text), "--study", "Lab")
    message = str(excinfo.value)
    assert "line 5, username" in message and "line 5, email" in message
    assert "line 6, roles" in message  # a rater who is also a researcher
    assert "line 3, username: a user 'jane' already exists" in message
    assert User.objects.count() == 1 and not Invitation.objects.exists()
    client.force_login(UserFactory(username="boss", role="Admin"))  # the page: the same one list
    page = client.post(
        reverse("onboarding:invite", args=[study.pk]), {"file": SimpleUploadedFile("p.csv", text.encode())}
    )
    html = page.content.decode().replace("&#x27;", "'")
    assert page.status_code == 400
    assert "line 5, email" in html and "line 6, roles" in html and "a user 'jane' already exists" in html
    assert User.objects.count() == 2 and not Invitation.objects.exists()


def test_a_full_width_username_is_stored_as_the_login_form_reads_it(study, tmp_path):
    """Hostile pass 16 (F6): "ｕｘ9" was stored as typed; the login form folds what is typed (NFKC)
    to "ux9", so the account could never log in."""
    call_command(
        "invite_raters",
        _csv(tmp_path, "username,name,email,language,roles\nｕｘ9,N,u@x.org,en,rater\n"),
        "--study",
        "Lab",
    )
    assert list(User.objects.values_list("username", flat=True)) == ["ux9"]


def test_latin1_file_is_refused_with_advice(study, tmp_path):
    with pytest.raises(CommandError, match="CSV UTF-8"):
        call_command(
            "invite_raters",
            _csv(tmp_path, GOOD.replace("Jane", "Jäne"), encoding="latin-1"),
            "--study",
            "Lab",
        )
    assert not User.objects.exists()


def _link_path(link: str) -> str:
    return link.split("8000", 1)[1] if "8000" in link else link.split("testserver", 1)[1]


def test_link_sets_the_password_once_and_then_says_it_was_used(study, tmp_path, capsys, client):
    link = _link_path(_invite(tmp_path, GOOD, capsys)["jane"])
    reply = client.get(link)
    set_url = reverse("onboarding:set_password", args=[link.split("/")[3]])
    assert reply.status_code == 302 and reply.url == set_url  # the token leaves the address bar
    page = client.get(set_url)
    assert page.status_code == 200 and "jane" in page.content.decode()
    weak = client.post(set_url, {"new_password1": "jane", "new_password2": "jane"})
    assert weak.status_code == 200 and not User.objects.get(username="jane").has_usable_password()
    done = client.post(set_url, {"new_password1": "Tide-pool-2035", "new_password2": "Tide-pool-2035"})
    assert done.status_code == 302 and done.url == reverse("login")
    jane = User.objects.get(username="jane")
    assert jane.check_password("Tide-pool-2035")
    assert Invitation.objects.get(user=jane).accepted_at is not None
    client.logout()
    again = client.get(link)
    # the page of any unusable link (issue 22: it tells nothing about the account)
    assert again.status_code == 400 and "This link cannot be used" in again.content.decode()
    assert (
        client.post(set_url, {"new_password1": "Other-pass-99", "new_password2": "Other-pass-99"}).status_code
        == 400
    )
    assert User.objects.get(username="jane").check_password("Tide-pool-2035")


def test_expired_and_forged_links_cannot_be_used(study, tmp_path, capsys, client, settings):
    _invite(tmp_path, GOOD, capsys)
    jane = User.objects.get(username="jane")
    uidb64 = urlsafe_base64_encode(force_bytes(jane.pk))
    # token timestamps count seconds since 2001-01-01 (Django's epoch for them)
    old = invitation_tokens._num_seconds(invitation_tokens._now()) - settings.PASSWORD_RESET_TIMEOUT - 60
    expired = invitation_tokens._make_token_with_timestamp(jane, old, invitation_tokens.secret)
    reply = client.get(reverse("onboarding:link", args=[uidb64, expired]))
    assert reply.status_code == 400 and "This link cannot be used" in reply.content.decode()
    forged = client.get(reverse("onboarding:link", args=[uidb64, "abc-0123456789abcdef"]))
    assert forged.status_code == 400 and "This link cannot be used" in forged.content.decode()
    assert client.get(reverse("onboarding:link", args=["!!", "x-y"])).status_code == 400
    assert not User.objects.get(username="jane").has_usable_password()


def test_admin_invites_on_the_page_copies_links_and_renews_one(study, client):
    admin = UserFactory(username="boss", role="Admin")
    client.force_login(admin)
    url = reverse("onboarding:invite", args=[study.pk])
    bad = client.post(
        url, {"file": SimpleUploadedFile("p.csv", b"username,name,email,language,roles\nx,X,nope,en,rater\n")}
    )
    assert bad.status_code == 400 and "line 2, email" in bad.content.decode()
    assert not User.objects.filter(username="x").exists()
    reply = client.post(url, {"file": SimpleUploadedFile("p.csv", GOOD.encode()), "send_email": ""})
    page = reply.content.decode()
    assert reply.status_code == 200 and page.count("http://testserver/accounts/invite/") == 3
    assert 'data-copy="link-1"' in page and not mail.outbox
    assert Invitation.objects.filter(invited_by=admin).count() == 3
    listing = client.get(url).content.decode()
    assert "wang.li" in listing and "Waiting" in listing
    invitation = Invitation.objects.get(user__username="jane")
    renewed = client.post(reverse("onboarding:renew", args=[invitation.pk]))
    assert renewed.status_code == 200 and "http://testserver/accounts/invite/" in renewed.content.decode()
    assert [m.to for m in mail.outbox] == [["jane@lab.example.org"]]


def test_only_admins_invite(study, client):
    client.force_login(UserFactory(username="r", role="Rater"))
    reply = client.post(
        reverse("onboarding:invite", args=[study.pk]), {"file": SimpleUploadedFile("p.csv", GOOD.encode())}
    )
    assert reply.status_code == 403 and not Invitation.objects.exists()


def test_anonymous_visitors_reach_only_the_invitation_links(study, client):
    for url in (
        reverse("studies:studies"),
        reverse("studies:study", args=[study.pk]),
        reverse("studies:scenarios_import", args=[study.pk]),
        reverse("onboarding:invite", args=[study.pk]),
    ):
        reply = client.get(url)
        assert reply.status_code == 302 and reply.url.startswith("/accounts/login/"), url
    # the link pages answer without a login (the invitee has no password yet)
    reply = client.get(reverse("onboarding:link", args=["MQ", "abc-def"]))
    assert reply.status_code == 400 and "This link cannot be used" in reply.content.decode()


def test_the_invite_pages_own_example_is_accepted_in_the_demo(client, demo):
    """A new user's walkthrough (session 2026-12-08): the example on the page named rater IDs the
    demo's raters hold (H01, H03), so pasting it was refused."""
    import html
    import re

    client.force_login(get_user_model().objects.get(username="admin"))
    study = Study.objects.get(name="CGPST demo")
    page = client.get(reverse("onboarding:invite", args=[study.pk])).content.decode()
    example = html.unescape(re.search(r'<pre class="muted">(username,.*?)</pre>', page, re.S)[1])
    upload = SimpleUploadedFile("people.csv", example.encode("utf-8"), content_type="text/csv")
    reply = client.post(reverse("onboarding:invite", args=[study.pk]), {"file": upload})
    assert reply.status_code == 200 and "is taken" not in reply.content.decode()
    assert set(
        RaterProfile.objects.filter(user__username__in=["wang.li", "jane"]).values_list(
            "rater_code", flat=True
        )
    ) == {"H11", "H13"}

"""The product's account pages (/manage/accounts/): admins deactivate and reactivate
accounts, change roles and send new set-password links, audited; they never set a
password, staff or superuser flag, and only a superuser acts on admins."""

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse

from core.accounts.roles import ADMIN, RATER, RESEARCHER
from onboarding.csv_files import invitees_from_csv
from onboarding.models import Invitation
from onboarding.services import account_roles_set, raters_invite
from scoring.models import RaterProfile
from studies.models import AuditEvent
from tests.factories import UserFactory, rater

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def boss(client):
    user = UserFactory(username="boss", role=ADMIN, is_staff=True)
    client.force_login(user)
    return user


def _groups(user):
    return set(User.objects.get(pk=user.pk).groups.values_list("name", flat=True))


def test_the_list_shows_every_account_and_is_linked_from_the_admin_home(client, boss):
    r1 = rater("r1", "H01", can_calibrate=True)
    r1.email = "r1@lab.example.org"
    r1.save()
    page = client.get(reverse("onboarding:accounts"))
    html = page.content.decode()
    assert page.status_code == 200
    assert 'data-username="r1"' in html and "r1@lab.example.org" in html and "H01" in html
    assert 'data-username="boss"' in html
    assert reverse("onboarding:accounts") in client.get(reverse("scoring:admin_home")).content.decode()


def test_only_admins_see_the_account_pages(client):
    target = rater("r1", "H01")
    for role in (RATER, RESEARCHER):
        client.force_login(UserFactory(username=f"u-{role}", role=role))
        assert client.get(reverse("onboarding:accounts")).status_code == 403
        assert client.get(reverse("onboarding:account", args=[target.pk])).status_code == 403
        reply = client.post(reverse("onboarding:account_active", args=[target.pk]), {"active": ""})
        assert reply.status_code == 403
    assert User.objects.get(pk=target.pk).is_active


def test_deactivate_and_reactivate_are_audited(client, boss):
    target = rater("r1", "H01")
    reply = client.post(
        reverse("onboarding:account_active", args=[target.pk]), {"active": "", "reason": "left"}, follow=True
    )
    assert "r1 can no longer log in." in reply.content.decode()
    assert not User.objects.get(pk=target.pk).is_active
    client.post(reverse("onboarding:account_active", args=[target.pk]), {"active": "on"})
    assert User.objects.get(pk=target.pk).is_active
    events = list(AuditEvent.objects.filter(target=f"auth.user:{target.pk}").order_by("at", "pk"))
    assert [e.action for e in events] == ["account.deactivate", "account.reactivate"]
    assert events[0].actor == boss and events[0].reason == "left"


def test_roles_change_with_staff_following_admin_and_never_with_a_password(client, boss):
    target = rater("r2", "H02")
    target.set_password("Own-password-2030")
    target.save()
    url = reverse("onboarding:account", args=[target.pk])
    assert 'value="rater" id="id_roles_0" checked' in client.get(url).content.decode()
    reply = client.post(url, {"roles": ["calibrator"]})
    assert reply.status_code == 302
    assert _groups(target) == {RATER}
    assert RaterProfile.objects.get(user=target).can_calibrate
    assert 'value="calibrator" id="id_roles_1" checked' in client.get(url).content.decode()
    target.refresh_from_db()
    assert not target.is_staff and not target.is_superuser and target.check_password("Own-password-2030")
    event = AuditEvent.objects.get(action="account.roles")
    assert event.changes == {"roles": [["rater"], ["calibrator"]]} and event.actor == boss


def test_an_account_never_crosses_the_blind_not_even_by_way_of_no_role(client, boss):
    """Hostile pass 14: a live rater made researcher read the study's unblinded pages in the same
    session and, made rater again, scored on. Refused both ways, and through an empty role set."""
    scorer = rater("r3", "H03")
    reader = UserFactory(username="res", role=RESEARCHER)
    for user, roles in ((scorer, ["researcher"]), (reader, ["rater"]), (reader, ["calibrator"])):
        reply = client.post(reverse("onboarding:account", args=[user.pk]), {"roles": roles})
        assert reply.status_code == 400 and "other side of the blind" in reply.content.decode()
    assert _groups(scorer) == {RATER} and _groups(reader) == {RESEARCHER}
    # first no role at all (the service allows it; the page asks for one), then the other side:
    # refused, the past is remembered
    for user, roles in ((scorer, ["researcher"]), (reader, ["rater"])):
        account_roles_set(actor=boss, user_id=user.pk, roles=[])
        assert _groups(user) == set()
        reply = client.post(reverse("onboarding:account", args=[user.pk]), {"roles": roles})
        assert reply.status_code == 400 and "second account" in reply.content.decode()
        assert _groups(user) == set()


def test_an_invited_researcher_or_admin_gets_a_role_back_but_an_invited_rater_never_crosses(client, boss):
    """Hostile pass 24: an invitation with a language gives researchers and admins a rater
    profile (it holds the language), which the page took for a past as a rater: a superuser
    could not give an invited researcher back the role taken from them. A rater invited
    without a rater ID and left with no role is still refused the other side."""
    csv = (
        b"username,name,email,language,roles\n"
        b"res.zh,Res Zh,res@lab.example.org,zh-hans,researcher\n"
        b"adm.zh,Adm Zh,adm@lab.example.org,zh-hans,admin\n"
        b"rat.zh,Rat Zh,rat@lab.example.org,zh-hans,rater\n"
    )
    raters_invite(
        study=None, invitees=invitees_from_csv(csv), actor=None, link_for=lambda i, t: "x", email=False
    )
    researcher, admin, scorer = (User.objects.get(username=name) for name in ("res.zh", "adm.zh", "rat.zh"))
    assert RaterProfile.objects.filter(user__in=[researcher, admin, scorer], rater_code=None).count() == 3
    root = User.objects.create_superuser("root", password="Root-pass-original-1")
    client.force_login(root)
    for user, role in ((researcher, "researcher"), (admin, "admin")):
        url = reverse("onboarding:account", args=[user.pk])
        assert client.post(url, {"roles": [role], "reason": "same"}).status_code == 302  # unchanged
        account_roles_set(actor=root, user_id=user.pk, roles=[])
        assert _groups(user) == set()
        assert client.post(url, {"roles": [role], "reason": "back"}).status_code == 302
        assert _groups(user) == {ADMIN if role == "admin" else RESEARCHER}
    account_roles_set(actor=boss, user_id=scorer.pk, roles=[])
    reply = client.post(reverse("onboarding:account", args=[scorer.pk]), {"roles": ["researcher"]})
    assert reply.status_code == 400 and "second account" in reply.content.decode()
    assert _groups(scorer) == set()


@pytest.mark.parametrize("roles", [["rater", "researcher"], ["calibrator", "researcher"]])
def test_the_role_page_refuses_a_rater_with_an_unblinded_role(client, boss, roles):
    target = UserFactory(username="res", role=RESEARCHER)
    reply = client.post(reverse("onboarding:account", args=[target.pk]), {"roles": roles})
    assert reply.status_code == 400 and "second account" in reply.content.decode()
    assert _groups(target) == {RESEARCHER} and not AuditEvent.objects.exists()


def test_only_a_superuser_grants_admin_or_acts_on_an_admin(client, boss):
    target = rater("r1", "H01")
    other_admin = UserFactory(username="admin2", role=ADMIN, is_staff=True)
    root = User.objects.create_superuser("root", password="Root-pass-original-1")
    reply = client.post(
        reverse("onboarding:account", args=[UserFactory(username="res", role=RESEARCHER).pk]),
        {"roles": ["admin"]},
    )
    assert reply.status_code == 400 and "Only a superuser" in reply.content.decode()
    for victim in (other_admin, root):
        client.post(reverse("onboarding:account_active", args=[victim.pk]), {"active": ""})
        assert User.objects.get(pk=victim.pk).is_active
        client.post(reverse("onboarding:account_link", args=[victim.pk]))
        assert not Invitation.objects.filter(user=victim).exists()
        client.post(reverse("onboarding:account", args=[victim.pk]), {"roles": ["researcher"]})
    assert ADMIN in _groups(other_admin) and User.objects.get(pk=root.pk).is_superuser
    # a superuser may
    client.force_login(root)
    client.post(reverse("onboarding:account", args=[other_admin.pk]), {"roles": ["researcher"]})
    assert _groups(other_admin) == {RESEARCHER} and not User.objects.get(pk=other_admin.pk).is_staff
    # not even a superuser makes a rater an admin: the blind comes first
    client.post(reverse("onboarding:account", args=[target.pk]), {"roles": ["admin"]})
    assert _groups(target) == {RATER} and not User.objects.get(pk=target.pk).is_staff


def test_a_new_link_revokes_the_previous_and_lets_the_owner_choose_a_password(client, boss):
    target = rater("r1", "H01")
    target.email = "r1@lab.example.org"
    target.set_password("Forgotten-pass-2020")
    target.save()
    first = client.post(reverse("onboarding:account_link", args=[target.pk]))
    assert first.status_code == 200 and "Emailed" in first.content.decode()
    assert [m.to for m in mail.outbox] == [["r1@lab.example.org"]]
    second = client.post(reverse("onboarding:account_link", args=[target.pk]))
    link_1 = mail.outbox[0].body.split("http://testserver", 1)[1].split()[0]
    link_2 = mail.outbox[1].body.split("http://testserver", 1)[1].split()[0]
    assert second.status_code == 200 and link_1 != link_2
    # the account has a password: the admin never sees the link (it could log in as r1 with it)
    assert link_2 not in second.content.decode() and "/accounts/invite/" not in second.content.decode()
    assert Invitation.objects.filter(user=target).count() == 1
    assert AuditEvent.objects.filter(action="account.link", actor=boss).count() == 2
    # the admin's password for the account is untouched: it still works until the owner sets one
    assert User.objects.get(pk=target.pk).check_password("Forgotten-pass-2020")
    client.logout()
    assert client.get(link_1).status_code == 400
    reply = client.get(link_2)
    assert reply.status_code == 302
    client.post(reply.url, {"new_password1": "Brand-new-pass-2036", "new_password2": "Brand-new-pass-2036"})
    assert User.objects.get(pk=target.pk).check_password("Brand-new-pass-2036")
    assert client.get(link_2).status_code == 400  # used up


def test_an_admin_cannot_deactivate_or_re_role_itself(client, boss):
    client.post(reverse("onboarding:account_active", args=[boss.pk]), {"active": ""})
    assert User.objects.get(pk=boss.pk).is_active
    reply = client.post(reverse("onboarding:account", args=[boss.pk]), {"roles": ["researcher"]})
    assert reply.status_code == 400 and ADMIN in _groups(boss)


def test_an_llm_judges_rater_account_is_neither_listed_nor_managed(client, boss):
    from judging.services.judges import judge_create
    from tests.factories import ModelEndpointFactory

    judge = judge_create(name="Listed judge", endpoint=ModelEndpointFactory(base_url="http://127.0.0.1:9/v1"))
    page = client.get(reverse("onboarding:accounts")).content.decode()
    assert f'data-username="{judge.user.username}"' not in page
    assert client.get(reverse("onboarding:account", args=[judge.user.pk])).status_code == 404
    client.post(reverse("onboarding:account_active", args=[judge.user.pk]), {"active": "on", "reason": "x"})
    client.post(reverse("onboarding:account_link", args=[judge.user.pk]))
    user = User.objects.get(pk=judge.user.pk)
    assert not user.is_active and not user.has_usable_password()
    assert (
        not Invitation.objects.filter(user=user).exists()
        and not AuditEvent.objects.exclude(action="judge.create").exists()
    )


def test_no_mail_server_no_reset_link_for_an_account_with_a_password(client, boss, settings):
    """The tester's takeover: with no mail server the links page showed the new link of
    an account that had a password, and the admin set that person's password with it."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
    target = rater("r1", "H01")
    target.email = "r1@lab.example.org"
    target.set_password("Own-pass-of-r1-2026")
    target.save()
    reply = client.post(reverse("onboarding:account_link", args=[target.pk]), follow=True)
    html = reply.content.decode()
    assert "already has a password" in html and "/accounts/invite/" not in html
    assert not Invitation.objects.filter(user=target).exists() and not AuditEvent.objects.exists()
    assert User.objects.get(pk=target.pk).check_password("Own-pass-of-r1-2026")


def test_deactivating_a_rater_with_open_sheets_says_so_and_the_board_marks_them(client, demo):
    """Hostile pass 25: a deactivated rater's open sheets stayed on the board as ordinary work, and
    nothing told the admin that they wait for nobody until reassigned."""
    from scoring.models import Assignment

    client.force_login(User.objects.get(username="admin"))
    rater2 = User.objects.get(username="rater2")
    open_sheets = (
        Assignment.objects.filter(rater=rater2, archived_at__isnull=True)
        .exclude(role="training")
        .exclude(sheet__status="submitted")
        .count()
    )
    assert open_sheets > 0
    reply = client.post(reverse("onboarding:account_active", args=[rater2.pk]), {"active": ""}, follow=True)
    html = reply.content.decode()
    assert "rater2 can no longer log in." in html
    assert f"rater2 still has {open_sheets} unfinished sheet" in html
    board = client.get(reverse("scoring:workload")).content.decode()
    row = board[board.index("rater2") :]
    assert "data-deactivated" in row[: row.index("</tr>")]
    rater1_row = board[board.index("rater1") :]
    assert "data-deactivated" not in rater1_row[: rater1_row.index("</tr>")]
    # reactivated: no warning
    reply = client.post(reverse("onboarding:account_active", args=[rater2.pk]), {"active": "on"}, follow=True)
    assert "unfinished sheet" not in reply.content.decode()

"""Issue 22, findings 1 and 4: an invited admin cannot take over accounts in the Django
admin (the Admin group may only look), and the rater role never shares an account with a
role that sees unblinded data (admin, researcher)."""

import importlib

import pytest
from django.apps import apps as django_apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from core.accounts.roles import ADMIN, RATER, RESEARCHER, is_admin, is_admin_or_researcher, is_rater
from onboarding.models import Invitation
from research.models import ExportJob
from studies.models import Response, Study
from studies.services.roles import role_groups_ensure
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def invited_admin():
    """An admin as the invitation makes one: staff, in the Admin group, no superuser."""
    return UserFactory(username="boss", role=ADMIN, is_staff=True)


def test_the_admin_group_may_only_view(invited_admin):
    perms = Permission.objects.filter(group__name=ADMIN)
    assert perms.exists() and all(p.codename.startswith("view_") for p in perms)
    assert perms.filter(content_type__app_label="auth", codename="view_user").exists()
    assert not invited_admin.has_perm("auth.change_user") and not invited_admin.has_perm("auth.add_user")
    assert not invited_admin.has_perm("auth.change_group")
    assert not invited_admin.has_perm("scoring.change_scoresheet")


def test_the_migration_takes_the_other_permissions_from_an_existing_admin_group():
    group = Group.objects.create(name=ADMIN)
    group.permissions.set(Permission.objects.filter(content_type__app_label__in=["auth", "studies"]))
    assert group.permissions.filter(codename="change_user").exists()
    migration = importlib.import_module("onboarding.migrations.0002_admin_group_view_only")
    migration.forwards(django_apps, None)
    left = set(group.permissions.values_list("codename", flat=True))
    assert left and all(code.startswith("view_") for code in left)
    assert "view_user" in left and "view_study" in left


def test_an_invited_admin_cannot_take_over_an_account_in_the_django_admin(client, invited_admin):
    root = User.objects.create_superuser("root", password="Root-pass-original-1")
    client.force_login(invited_admin)
    assert client.get("/admin/auth/user/").status_code == 200  # inspection stays
    # the exploit: set the superuser's password
    reply = client.post(
        f"/admin/auth/user/{root.pk}/password/",
        {"password1": "Taken-over-2035!", "password2": "Taken-over-2035!", "usable_password": "true"},
    )
    assert reply.status_code == 403
    root.refresh_from_db()
    assert root.check_password("Root-pass-original-1") and not root.check_password("Taken-over-2035!")
    # the exploit: promote oneself
    reply = client.post(
        f"/admin/auth/user/{invited_admin.pk}/change/",
        {
            "username": "boss",
            "is_active": "on",
            "is_staff": "on",
            "is_superuser": "on",
            "groups": [g.pk for g in Group.objects.all()],
            "date_joined_0": "2026-01-01",
            "date_joined_1": "00:00:00",
        },
    )
    assert reply.status_code in (302, 403)
    invited_admin.refresh_from_db()
    assert not invited_admin.is_superuser
    # nor add, delete or re-group anyone
    assert (
        client.post("/admin/auth/user/add/", {"username": "x", "password1": "Abc-def-ghi-123"}).status_code
        == 403
    )
    assert client.post(f"/admin/auth/user/{root.pk}/delete/", {"post": "yes"}).status_code == 403
    group = Group.objects.get(name=ADMIN)
    assert (
        client.post(f"/admin/auth/group/{group.pk}/change/", {"name": "Admin", "permissions": []}).status_code
        == 403
    )
    assert User.objects.filter(pk=root.pk).exists() and not User.objects.filter(username="x").exists()
    assert group.permissions.exists()


def test_not_even_a_superuser_changes_accounts_in_the_django_admin(client):
    """Superusers change accounts on the product's pages (audited) and set their own
    password with ``changepassword``: the README promises no password is set for someone else."""
    root = User.objects.create_superuser("root", password="Root-pass-original-1")
    rater = UserFactory(username="r1", role=RATER)
    client.force_login(root)
    assert client.get(f"/admin/auth/user/{rater.pk}/change/").status_code == 200  # inspection stays
    reply = client.post(
        f"/admin/auth/user/{rater.pk}/password/",
        {"password1": "Reset-by-root-2035", "password2": "Reset-by-root-2035", "usable_password": "true"},
    )
    assert reply.status_code == 403
    rater.refresh_from_db()
    assert not rater.check_password("Reset-by-root-2035")


def test_the_django_admin_s_own_password_page_leads_to_the_audited_one(client):
    """Hostile pass 15 (F9): /admin/password_change/ changed a password with no audit event."""
    root = User.objects.create_superuser("root", password="Root-pass-original-1")
    client.force_login(root)
    for path in ("/admin/password_change/", "/admin/password_change/done/"):
        assert client.get(path).headers["Location"] == "/accounts/password/"
    new = "Changed-through-the-admin-2035"
    reply = client.post("/admin/password_change/", {"old_password": "Root-pass-original-1",
                        "new_password1": new, "new_password2": new})  # fmt: skip
    assert reply.status_code in (301, 302) and reply.headers["Location"] == "/accounts/password/"
    root.refresh_from_db()
    assert root.check_password("Root-pass-original-1")


# --- finding 4: rater + unblinded role --------------------------------------------------


def test_the_role_checks_never_open_unblinded_pages_to_a_rater():
    both = UserFactory(username="both", role=RATER)
    both.groups.add(role_groups_ensure()[RESEARCHER])
    both = User.objects.get(pk=both.pk)
    assert is_rater(both) and not is_admin_or_researcher(both)
    boss = UserFactory(username="boss2", role=ADMIN)
    boss.groups.add(role_groups_ensure()[RATER])
    boss = User.objects.get(pk=boss.pk)
    assert not is_admin(boss) and not is_admin_or_researcher(boss)
    researcher = User.objects.get(pk=UserFactory(username="res", role=RESEARCHER).pk)
    assert is_admin_or_researcher(researcher)


def test_a_rater_who_is_also_a_researcher_cannot_open_the_partner_s_data(client, demo):
    """The issue's exploit: rater1 (legacy data: also a Researcher) opens the agreement
    drill-down of a response it scores (names the partner) and the item export."""
    rater1 = User.objects.get(username="rater1")
    rater1.groups.add(Group.objects.get(name=RESEARCHER))
    response = Response.objects.get(research_id="A05_FS10")
    researcher = User.objects.get(username="researcher")
    job = ExportJob.objects.create(
        kind="results", params={"study_id": response.study_id}, created_by=researcher
    )
    client.force_login(rater1)
    assert client.get(f"/research/agreement/response/{response.pk}/").status_code == 403
    assert client.get("/research/agreement/").status_code == 403
    assert client.get("/research/").status_code == 403
    before = ExportJob.objects.count()
    assert (
        client.post("/research/exports/", {"kind": "results", "study": response.study_id}).status_code == 403
    )
    assert ExportJob.objects.count() == before
    assert client.get(f"/research/exports/{job.pk}/").status_code == 403
    assert client.get(f"/research/exports/{job.pk}/download").status_code == 403
    # the home page sends it to its rater queue and says why
    home = client.get("/", follow=True)
    assert home.redirect_chain[-1][0] == "/scoring/"
    assert "second account" in home.content.decode()
    # the same account as a plain researcher may open them
    rater1.groups.remove(Group.objects.get(name=RATER))
    assert client.get(f"/research/agreement/response/{response.pk}/").status_code == 200


CONFLICTS = [
    "rater|researcher",
    "calibrator|researcher",
    "rater|admin",
]


@pytest.mark.parametrize("roles", CONFLICTS)
def test_invite_raters_refuses_a_rater_with_an_unblinded_role(tmp_path, roles):
    Study.objects.create(name="Lab")
    path = tmp_path / "p.csv"
    path.write_text(f"username,name,email,language,roles\nbob,Bob,bob@x.org,en,{roles}\n", encoding="utf-8")
    with pytest.raises(CommandError) as excinfo:
        call_command("invite_raters", str(path), "--study", "Lab", "--no-email")
    assert "line 2, roles: a rater cannot also be a researcher or an admin" in str(excinfo.value)
    assert "second account" in str(excinfo.value)
    assert not User.objects.filter(username="bob").exists() and not Invitation.objects.exists()


def test_the_invitation_page_refuses_a_rater_with_an_unblinded_role(client):
    study = Study.objects.create(name="Lab")
    client.force_login(UserFactory(username="boss", role=ADMIN))
    text = b"username,name,email,language,roles\nbob,Bob,bob@x.org,en,rater|researcher\n"
    reply = client.post(f"/manage/studies/{study.pk}/invite/", {"file": SimpleUploadedFile("p.csv", text)})
    assert reply.status_code == 400 and "second account" in reply.content.decode()
    assert not User.objects.filter(username="bob").exists()


def test_only_a_superuser_invites_an_admin_on_the_page(client):
    study = Study.objects.create(name="Lab")
    client.force_login(UserFactory(username="boss", role=ADMIN))
    text = b"username,name,email,language,roles\nbob,Bob,bob@x.org,en,admin\n"
    reply = client.post(f"/manage/studies/{study.pk}/invite/", {"file": SimpleUploadedFile("p.csv", text)})
    assert reply.status_code == 400 and "only a superuser may invite an admin" in reply.content.decode()
    assert not User.objects.filter(username="bob").exists()

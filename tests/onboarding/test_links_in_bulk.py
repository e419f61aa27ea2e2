"""Issue 40: new invitation links for several invitees at once, from a study's invitations page:
the ticked ones or every one whose link expired; all or none, each audited, each old link dead."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from onboarding.csv_files import invitees_from_csv
from onboarding.models import Invitation
from onboarding.services import InvitationError, invitation_links_renew, raters_invite
from studies.models import AuditEvent, Study
from tests.onboarding.test_links_and_passwords import GOOD, _build, _path

pytestmark = pytest.mark.django_db
User = get_user_model()
CSV = (
    b"username,name,email,language,roles\n"
    b"ann,Ann,ann@lab.example.org,en,rater\nbo,Bo,bo@lab.example.org,zh-hans,rater\n"
    b"cy,Cy,cy@lab.example.org,en,rater\n"
)


@pytest.fixture
def study_links():
    study = Study.objects.create(name="Lab")
    links = raters_invite(
        study=study, invitees=invitees_from_csv(CSV), actor=None, link_for=_build, email=False
    )
    return study, {link.username: _path(link.link) for link in links}


@pytest.fixture
def admin_client(client):
    from core.accounts.roles import ADMIN
    from demo.services import user_create_with_role

    user_create_with_role(username="lab-admin", password=GOOD, role=ADMIN)
    client.login(username="lab-admin", password=GOOD)
    return client


def _invitation(username: str) -> Invitation:
    return Invitation.objects.get(user__username=username)


def test_ticked_invitations_get_new_links_and_the_old_ones_die(client, study_links):
    study, old = study_links
    links = invitation_links_renew(
        invitation_ids=[_invitation("ann").pk, _invitation("bo").pk], link_for=_build, email=False
    )
    assert [link.username for link in links] == ["ann", "bo"]
    for link in links:
        assert client.get(old[link.username]).status_code == 400
        assert client.get(_path(link.link)).status_code == 302
    assert client.get(old["cy"]).status_code == 302  # not ticked: untouched
    assert AuditEvent.objects.filter(action="account.link").count() == 2


def test_one_that_set_a_password_refuses_them_all(client, study_links):
    study, old = study_links
    cy = User.objects.get(username="cy")
    cy.set_password(GOOD)
    cy.save()
    before = {i.pk: i.last_link_at for i in Invitation.objects.all()}
    with pytest.raises(InvitationError):
        invitation_links_renew(
            invitation_ids=[_invitation("ann").pk, _invitation("cy").pk], link_for=_build, email=False
        )
    with pytest.raises(InvitationError):
        invitation_links_renew(invitation_ids=[_invitation("ann").pk, 10**9], link_for=_build, email=False)
    assert {i.pk: i.last_link_at for i in Invitation.objects.all()} == before
    assert client.get(old["ann"]).status_code == 302


def test_the_page_renews_every_expired_link(admin_client, study_links):
    study, old = study_links
    long_ago = timezone.now() - timedelta(days=30)
    Invitation.objects.filter(user__username__in=["ann", "bo"]).update(last_link_at=long_ago)
    page = admin_client.get(reverse("onboarding:invite", args=[study.pk])).content.decode()
    assert "all 2 invitations whose links expired" in page
    reply = admin_client.post(reverse("onboarding:renew_many", args=[study.pk]), {"scope": "expired"})
    assert reply.status_code == 200
    body = reply.content.decode()
    assert "ann" in body and "bo" in body and "cy@lab" not in body
    assert Invitation.objects.get(user__username="ann").last_link_at > long_ago
    assert Invitation.objects.get(user__username="cy").last_link_at < timezone.now()


@pytest.mark.parametrize(
    "data",
    [
        {"scope": "ticked"},
        {"scope": "ticked", "ids": ["x"]},
        {"scope": "ticked", "ids": ["9" * 30]},
        {"scope": "all"},
    ],
)
def test_bad_requests_change_nothing(admin_client, study_links, data):
    study, _old = study_links
    before = {i.pk: i.last_link_at for i in Invitation.objects.all()}
    reply = admin_client.post(reverse("onboarding:renew_many", args=[study.pk]), data, follow=True)
    assert reply.status_code == 200 and b'class="msg msg-error"' in reply.content
    assert {i.pk: i.last_link_at for i in Invitation.objects.all()} == before


def test_another_studys_invitation_is_no_choice(admin_client, study_links):
    study, _old = study_links
    other = Study.objects.create(name="Other")
    reply = admin_client.post(
        reverse("onboarding:renew_many", args=[other.pk]), {"scope": "ticked", "ids": [_invitation("ann").pk]}
    )
    assert reply.status_code == 302
    assert not AuditEvent.objects.filter(action="account.link", actor__username="lab-admin").exists()


def test_a_deactivated_account_gets_no_new_link(client, study_links):
    """Hostile pass 13, finding 7: the invitations page renewed a deactivated account's link,
    which then worked once the account was reactivated; the account page refused."""
    study, old = study_links
    bo = User.objects.get(username="bo")
    bo.is_active = False
    bo.save()
    before = {i.pk: i.last_link_at for i in Invitation.objects.all()}
    for ids in ([_invitation("bo").pk], [_invitation("ann").pk, _invitation("bo").pk]):
        with pytest.raises(InvitationError, match="deactivated"):
            invitation_links_renew(invitation_ids=ids, link_for=_build, email=False)
    assert {i.pk: i.last_link_at for i in Invitation.objects.all()} == before

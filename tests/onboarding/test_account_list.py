"""Issue 40: the accounts page at a lab's size: searched (name, email, rater ID), filtered by role
and state, 100 a page, each page's links keeping the filters."""

from __future__ import annotations

import pytest

from core.accounts.roles import RATER, RESEARCHER
from onboarding import views as onboarding_views
from tests.factories import rater

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, demo):
    client.login(username="admin", password="demo-pass-2026")
    return client


def _listed(client, **query) -> list[str]:
    html = client.get("/manage/accounts/", query).content.decode()
    table = html.split('id="accounts"', 1)[1].split("</table>", 1)[0]
    return [
        cell.split("<", 1)[0].split(">")[-1].strip()
        for cell in table.split('<td><a href="/manage/accounts/')[1:]
    ]


def test_search_role_and_state_choose_the_accounts(admin_client, demo):
    gone = rater("gone.rater", "H77")
    gone.is_active = False
    gone.save()
    assert "gone.rater" in _listed(admin_client)
    assert _listed(admin_client, q="h77") == ["gone.rater"]
    assert _listed(admin_client, active="no") == ["gone.rater"]
    assert "gone.rater" not in _listed(admin_client, active="yes")
    researchers = _listed(admin_client, role=RESEARCHER)
    assert researchers and all(name not in researchers for name in ("rater1", "gone.rater"))
    assert "rater1" in _listed(admin_client, role=RATER)


def test_pages_keep_the_filters_and_odd_input_is_said(admin_client, demo, monkeypatch):
    monkeypatch.setattr(onboarding_views, "ACCOUNTS_PER_PAGE", 1)
    page = admin_client.get("/manage/accounts/", {"role": RATER}).content.decode()
    assert f'href="?role={RATER}&amp;page=2"' in page and "Page 1 of" in page
    for query in ({"role": "<b>"}, {"active": "maybe"}, {"page": "9" * 40}, {"q": "x" * 500}):
        reply = admin_client.get("/manage/accounts/", query)
        assert reply.status_code == 200

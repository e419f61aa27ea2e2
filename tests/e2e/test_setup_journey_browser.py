"""In Chromium, on an empty database with the demo off: an admin creates a study from
the CGPST release template, invites two raters by CSV and copies their links; a rater
sets a password through the link and logs in; the used link then says so."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from onboarding.models import Invitation
from studies.models import Scenario, Study
from tests.browser import login
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CSV = (
    "username;name;email;language;roles;rater_code\n"
    "wang.li;Wang Li;wang.li@lab.example.org;zh-hans;rater;H01\n"
    "jane;Jane Doe;jane@lab.example.org;en;rater|calibrator;H02\n"
)


def test_admin_sets_up_a_study_and_a_rater_joins_through_the_link(live_server, browser, settings, tmp_path):
    settings.DEMO_MODE = False
    assert not Study.objects.exists() and not Scenario.objects.exists()
    UserFactory(username="labadmin", password="Admin-pass-2026", role="Admin")
    base = live_server.url

    admin_context = browser.new_context()
    admin_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    page = admin_context.new_page()
    login(page, base, "labadmin", "Admin-pass-2026")
    page.goto(f"{base}/manage/")
    with page.expect_navigation():
        page.click("text=Studies: create one from a template")
    page.fill("#id_name", "Ocean lab")
    assert page.is_checked("input[name=template][value=cgpst-release]")
    with page.expect_navigation():
        page.click("#study-create button[type=submit]")
    assert "Study Ocean lab created." in page.inner_text(".messages")
    assert "Ocean Soup" in page.inner_text("#scenarios")

    with page.expect_navigation():
        page.click("text=Invite raters (CSV)")
    csv_path = tmp_path / "raters.csv"
    csv_path.write_text(CSV, encoding="utf-8-sig")  # Excel: BOM and semicolons
    page.set_input_files("#id_file", str(csv_path))
    with page.expect_navigation():
        page.click("#invite-form button[type=submit]")
    links = {
        row.get_attribute("data-username"): row.query_selector("input").input_value()
        for row in page.query_selector_all("#links tbody tr")
    }
    assert set(links) == {"wang.li", "jane"}
    page.click("#links tr[data-username='wang.li'] button[data-copy]")
    page.wait_for_selector("#links tr[data-username='wang.li'] button[data-copied]")
    assert page.evaluate("() => navigator.clipboard.readText()") == links["wang.li"]
    admin_context.close()

    rater_context = browser.new_context()
    rater = rater_context.new_page()
    rater.goto(links["wang.li"])
    assert rater.url.endswith("/set-password/")  # the token is off the address bar
    assert "wang.li" in rater.inner_text("main")
    assert "设置您的密码" in rater.inner_text("h1")  # in the language the CSV gave
    rater.fill("#id_new_password1", "Coral-reef-2035")
    rater.fill("#id_new_password2", "Coral-reef-2035")
    with rater.expect_navigation():
        rater.click("#set-password button[type=submit]")
    assert "/accounts/login/" in rater.url
    login(rater, base, "wang.li", "Coral-reef-2035")
    assert rater.url.endswith("/scoring/")
    assert rater.get_attribute("html", "lang") == "zh-hans"  # the UI language from the CSV
    assert Invitation.objects.get(user__username="wang.li").accepted_at is not None
    assert get_user_model().objects.get(username="jane").has_usable_password() is False

    reply = rater.goto(links["wang.li"])
    assert reply.status == 400  # a used link: the one page of every unusable link
    assert rater.query_selector("#link-problem") is not None
    rater_context.close()

"""The refusal pages and the deactivation warning in the browser, as their users meet them: the 400
page for each reason, the 404 page, the out-of-date page of a form sent from a tab left open across
a logout and a login, and an admin's deactivation of a rater with open sheets (the message and the
workload board's badge). Each says what the server decided, in English and Chinese, light and dark,
at 1366 and 390 px, with no serious axe violation and no page wider than the window."""

import pytest
from django.contrib.auth import get_user_model

from onboarding.selectors import account_open_sheets_count
from tests.a11y import axe_violations
from tests.browser import login, shot
from tests.e2e.test_accessibility_browser import STICKING_OUT, WIDER

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LOOKS = [("en", "dark", 390), ("zh-hans", "light", 1366)]
# what each page says, in each language (the catalogue's words)
SAYS = {
    "en": {
        "nul": "a NUL, %00",
        "fields": "more query fields than any page",
        "404": "Page not found",
        "csrf": "This page is out of date",
        "badge": "Deactivated",
    },
    "zh-hans": {
        "nul": "NUL",
        "fields": "查询字段",
        "404": "页面未找到",
        "csrf": "此页面已过期",
        "badge": "已停用",
    },
}


def _problems(page, name: str) -> list[str]:
    found = [f"{name}: {line}" for line in axe_violations(page)]
    overflow = page.evaluate(WIDER)
    if overflow > 1:
        found.append(f"{name}: {overflow} px wider than the window: {page.evaluate(STICKING_OUT)}")
    shot(page, name)
    return found


@pytest.mark.parametrize(("lang", "scheme", "width"), LOOKS)
def test_refusal_pages_and_the_deactivation_warning(live_server, demo, browser, lang, scheme, width):
    base, says, tag = live_server.url, SAYS[lang], f"{lang}-{scheme}-{width}"
    context = browser.new_context(
        viewport={"width": width, "height": 844 if width < 800 else 768}, color_scheme=scheme
    )
    context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    page = context.new_page()
    problems: list[str] = []

    login(page, base, "rater1")
    for reason, url in (
        ("nul", "/scoring/?q=%00"),
        ("fields", "/scoring/?" + "&".join(f"f{i}=1" for i in range(1100))),
    ):
        reply = page.goto(base + url)
        assert reply.status == 400
        card = page.locator("[data-status='400']")
        assert says[reason] in card.inner_text(), (reason, card.inner_text())
        problems += _problems(page, f"error-400-{reason}-{tag}")
    reply = page.goto(f"{base}/scoring/NOSUCHCODE/")
    assert reply.status == 404 and says["404"] in page.locator("main").inner_text()
    problems += _problems(page, f"error-404-{tag}")

    # a tab left open while another tab logs out and in again: its form is out of date
    page.goto(f"{base}/scoring/")
    other = context.new_page()
    other.goto(f"{base}/scoring/")
    with other.expect_navigation():
        other.get_by_role("button", name="Log out" if lang == "en" else "退出登录").click()
    login(other, base, "rater1")
    with page.expect_navigation():
        page.locator("form[action$='/logout/'] button").click()
    card = page.locator("[data-status='403'][data-reason='csrf']")
    assert says["csrf"] in card.inner_text()
    problems += _problems(page, f"error-403-csrf-{tag}")
    other.reload()
    assert "/accounts/login/" not in other.url  # nothing was done: still logged in
    context.close()

    # an admin deactivates a rater who has open sheets: the page says how many, the board marks them
    context = browser.new_context(
        viewport={"width": width, "height": 844 if width < 800 else 768}, color_scheme=scheme
    )
    context.add_cookies([{"name": "django_language", "value": lang, "url": base}])
    page = context.new_page()
    login(page, base, "admin")
    rater2 = get_user_model().objects.get(username="rater2")
    open_sheets = account_open_sheets_count(user_id=rater2.pk)
    assert open_sheets > 0
    page.goto(f"{base}/manage/accounts/{rater2.pk}/")
    page.once("dialog", lambda dialog: dialog.accept())
    with page.expect_navigation():
        page.locator("#account-active button[type=submit]").click()
    messages = page.locator(".messages").inner_text()
    assert "rater2" in messages and str(open_sheets) in messages, messages
    assert not get_user_model().objects.get(pk=rater2.pk).is_active
    problems += _problems(page, f"account-deactivated-{tag}")
    page.goto(f"{base}/manage/workload/")
    badge = page.locator("tr", has_text="rater2").locator("[data-deactivated]")
    assert badge.first.inner_text() == says["badge"]
    assert page.locator("tr", has_text="rater1").locator("[data-deactivated]").count() == 0
    problems += _problems(page, f"workload-deactivated-{tag}")
    context.close()
    assert problems == []

"""The endpoint pages in a real browser: an admin creates an endpoint pointing at the
bundled stub, presses "Test connection" and sees the status, the latency and the model's
answer; an endpoint whose key the operator bound to no host says why, in English and
Chinese, on a wide and a narrow screen, and its test sends nothing (issue 36)."""

import re

import pytest

from studies.models import AuditEvent, ModelEndpoint
from tests.browser import login, shot
from tests.egress import Recorder

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_create_an_endpoint_and_test_its_connection(live_server, demo, llm_stub, browser):
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    login(page, live_server.url, "admin")
    page.goto(f"{live_server.url}/manage/")
    page.click("text=Model endpoints: create, edit, test the connection")
    page.click("text=New endpoint")
    page.fill("#id_name", "stub-browser")
    page.fill("#id_model_number", "66")
    page.fill("#id_base_url", llm_stub.base_url)
    page.fill("#id_model_name", "stub-cgpst")
    page.fill("#id_api_key_env", "")
    with page.expect_navigation():
        page.click("button.primary")
    endpoint = ModelEndpoint.objects.get(name="stub-browser")
    assert page.url.endswith(f"/manage/endpoints/{endpoint.pk}/")
    assert AuditEvent.objects.filter(
        action="endpoint.create", target=f"studies.modelendpoint:{endpoint.pk}"
    ).exists()

    requests_before = llm_stub.stats.requests
    page.click("#test-button")
    page.wait_for_selector("#check-ok", timeout=30_000)
    assert re.fullmatch(r"Answered in \d+ ms \(HTTP 200\):", page.text_content("#check-ok").strip())
    assert page.text_content("#check-answer").strip()
    assert llm_stub.stats.requests == requests_before + 1  # one call, no more
    assert AuditEvent.objects.get(action="endpoint.test").changes["outcome"] == "answered"
    assert page.url.endswith(f"/manage/endpoints/{endpoint.pk}/")  # swapped in place by htmx
    assert errors == []
    context.close()


TEXTS = {
    "en": {
        "problem": "Nothing is sent to this endpoint. The key TEAMLLM_LLM_KEY_OPENAI is bound to no host",
        "hosts": "The operator's setting TEAMLLM_LLM_KEY_OPENAI_HOSTS names no host",
        "listing": "Nothing is sent to endpoint unbound.",
        "badge": "calls refused",
    },
    "zh-hans": {
        "problem": "不会向此端点发送任何内容。密钥 TEAMLLM_LLM_KEY_OPENAI 未绑定任何主机",
        "hosts": "运维人员的设置 TEAMLLM_LLM_KEY_OPENAI_HOSTS 未写明任何主机",
        "listing": "不会向端点 unbound 发送任何内容。",
        "badge": "调用被拒绝",
    },
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("width", [1366, 390])
def test_an_unbound_key_is_explained_and_its_test_sends_nothing(
    live_server, demo, browser, monkeypatch, language, width
):
    server = Recorder().start()
    monkeypatch.setenv("TEAMLLM_LLM_KEY_OPENAI", "sk-proj-Q7vX2kLm9Np3Rt8Wz5Yb1Hc4Jd6Fg0")
    monkeypatch.delenv("TEAMLLM_LLM_KEY_OPENAI_HOSTS", raising=False)
    endpoint = ModelEndpoint.objects.create(
        name="unbound", model_number="67", base_url=server.base_url, model_name="m",
        api_key_env="TEAMLLM_LLM_KEY_OPENAI", timeout_seconds=5,
    )  # fmt: skip
    texts = TEXTS[language]
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        login(page, live_server.url, "admin")
        page.goto(f"{live_server.url}/manage/endpoints/")
        assert texts["badge"] in page.text_content("#endpoints")
        assert texts["listing"] in page.text_content("main")
        page.goto(f"{live_server.url}/manage/endpoints/{endpoint.pk}/")
        assert page.get_attribute("html", "lang") == language
        problem = page.locator("#egress-problem")
        assert problem.is_visible() and texts["problem"] in problem.text_content()
        assert "TEAMLLM_LLM_KEY_OPENAI_HOSTS=api.openai.com" in problem.text_content()
        assert texts["hosts"] in page.text_content("#egress-hosts")
        # the alert fits the screen: no sideways scrolling, even at 390 px
        box = problem.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        shot(page, f"endpoint-unbound-{language}-{width}", full_page=True)

        page.click("#test-button")
        page.wait_for_selector("#check-error", timeout=30_000)
        assert "TEAMLLM_LLM_KEY_OPENAI_HOSTS" in page.text_content("#check-error")
        shot(page, f"endpoint-unbound-test-{language}-{width}", full_page=True)
        assert server.seen == []  # nothing reached the host, the key least of all
        event = AuditEvent.objects.get(action="endpoint.test")
        assert event.actor.username == "admin" and event.changes["outcome"] == "refused by settings"
        assert errors == []
    finally:
        context.close()
        server.stop()

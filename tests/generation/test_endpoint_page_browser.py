"""The endpoint pages in a real browser: an admin creates an endpoint pointing at the
bundled stub, presses "Test connection" and sees the latency and the model's answer."""

import re

import pytest

from studies.models import AuditEvent, ModelEndpoint
from tests.browser import login

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
    assert re.fullmatch(r"Answered in \d+ ms:", page.text_content("#check-ok").strip())
    assert page.text_content("#check-answer").strip()
    assert llm_stub.stats.requests == requests_before + 1  # one call, no more
    assert page.url.endswith(f"/manage/endpoints/{endpoint.pk}/")  # swapped in place by htmx
    assert errors == []
    context.close()

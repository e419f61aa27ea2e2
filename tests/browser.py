"""Playwright (sync API) driving Debian's Chromium, for the browser tests."""

from __future__ import annotations

import os
import re
import socket
import time
import urllib.request
from pathlib import Path

# The ``browser`` fixture (tests/conftest.py) sets DJANGO_ALLOW_ASYNC_UNSAFE while
# Playwright's sync API keeps its event loop in the test thread.

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
]
PASSWORD = "demo-pass-2026"
# Where the browser tests leave screenshots for a look by eye: none unless TEST_SHOTS names a folder
# (each costs Chromium a tenth of a second to a second of CPU; the suite takes about 140)
SHOTS = os.environ.get("TEST_SHOTS", "")
# a JavaScript function expression: function () {...}, async () => ..., x => ..., ({a}) => ...
FUNCTION = re.compile(r"^(async\s+)?(function\b|\(?[\w$\s,{}\[\]]*\)?\s*=>)")


def launch(playwright):
    _csp_safe_wait_for_function()
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def _csp_safe_wait_for_function() -> None:
    """``page.wait_for_function("document.x")`` makes Playwright eval() the expression in
    the page, which the app's Content-Security-Policy (no 'unsafe-eval') refuses; written
    as a function, ``"() => document.x"``, it runs like evaluate(), which CSP allows. Plain
    expressions are wrapped into functions here, so tests keep the short form and the
    policy stays on in every browser test."""
    from playwright.sync_api import Page

    if getattr(Page.wait_for_function, "csp_safe", False):
        return
    original = Page.wait_for_function

    def wait_for_function(self, expression: str, *args, **kwargs):
        text = expression.strip()
        if not FUNCTION.match(text):
            expression = f"() => ({text})"
        return original(self, expression, *args, **kwargs)

    wait_for_function.csp_safe = True  # type: ignore[attr-defined]
    Page.wait_for_function = wait_for_function  # type: ignore[method-assign]


def shot(target, name: str, **options) -> None:
    """A screenshot of ``target`` (a page or a locator) as ``<TEST_SHOTS>/<name>.png`` for a look
    by eye, where TEST_SHOTS names a folder; nothing otherwise."""
    if not SHOTS:
        return
    Path(SHOTS).mkdir(parents=True, exist_ok=True)
    target.screenshot(path=str(Path(SHOTS) / f"{name}.png"), **options)


def login(page, base_url: str, username: str, password: str = PASSWORD) -> None:
    page.goto(f"{base_url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "/accounts/login/" not in page.url, "login failed"


def open_sheet(page, base_url: str, code: str) -> None:
    page.goto(f"{base_url}/scoring/{code}/")
    page.wait_for_selector("html[data-sheet-ready]")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_wait(url: str, timeout: float = 30) -> bool:
    """Poll ``url`` (a server started by the test) until it answers; False if it never did."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=1).close()  # noqa: S310 - the test's own loopback server
            return True
        except OSError:
            time.sleep(0.2)
    return False


# The page's own save endpoint, called from the page as sheet.js does (session cookie, CSRF header
# from the page): a CGPST sheet's ~200 values in one request instead of ~200 clicks.
SAVE_FROM_PAGE = """async (changes) => {
  const data = JSON.parse(document.getElementById('sheet-data').textContent);
  const csrf = JSON.parse(document.body.getAttribute('hx-headers'))['X-CSRFToken'];
  const reply = await fetch(data.save_url, {
    method: 'POST', credentials: 'same-origin',
    headers: {'Content-Type': 'application/json', 'X-CSRFToken': csrf},
    body: JSON.stringify({sheet: data.sheet, batch_id: 'page' + Date.now(),
                          expected_version: data.version, changes: changes})});
  return reply.status;
}"""


def sheet_fill_and_submit(page, changes, *, clicked: str) -> None:
    """Fill the open sheet: every value of ``changes`` but ``clicked`` through the page's save
    endpoint, ``clicked`` (a 1-10 score) by keyboard, then submit with the page's button (the
    browser's confirm accepted by the caller's dialog handler)."""
    values = dict(changes)
    assert page.evaluate(SAVE_FROM_PAGE, [[p, v] for p, v in changes if p != clicked]) == 200
    page.reload()
    page.wait_for_selector("html[data-sheet-ready]")
    page.focus(f"input[name='{clicked}'][value='{values[clicked]}']")
    page.keyboard.press("0" if values[clicked] == 10 else str(values[clicked]))
    page.wait_for_function("document.getElementById('save-status').textContent.includes('Saved at')")
    with page.expect_navigation():
        page.click("#submit-sheet")

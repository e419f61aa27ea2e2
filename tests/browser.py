"""Playwright (sync API) driving Debian's Chromium, for the browser tests."""

from __future__ import annotations

import re
import socket
import time
import urllib.request

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

"""Playwright (sync API) driving Debian's Chromium, for the browser tests."""

from __future__ import annotations

import socket

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


def launch(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


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

"""Autosave survives a dead server: the app runs as a child process, is killed
while the rater types, and restarted; the queued changes arrive in order and
nothing is lost. Also: a reload while saves fail keeps the unsaved changes."""

import os
import signal
import subprocess
import sys

import pytest

from scoring.models import ScoreSheet
from scoring.selectors import sheet_entries_get
from studies.models import Response
from tests.browser import free_port, http_wait, login, open_sheet
from tests.factories import code_for
from tests.workers import ROOT, child_env


def _stored(sheet):
    """The sheet's entries as stored now (a draft's are on the sheet, its rows come at submit)."""
    return sheet_entries_get(sheet=ScoreSheet.all_objects.get(pk=sheet.pk))


pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SAVED = "document.getElementById('save-status').textContent.includes('Saved at')"


class AppServer:
    """``manage.py runserver`` against the test database, in its own process group."""

    def __init__(self, port: int):
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.proc = None

    def start(self, timeout: float = 30) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{self.port}"],
            cwd=ROOT, env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        if not http_wait(f"{self.url}/accounts/login/", timeout):
            raise RuntimeError("the app server did not start")

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


@pytest.fixture
def app_server():
    server = AppServer(free_port())
    server.start()
    yield server
    server.kill()


def _sheet(response):
    return ScoreSheet.objects.get(assignment__response=response, assignment__rater__username="rater1")


def test_changes_typed_while_the_server_is_down_arrive_after_restart(demo, app_server, browser):
    response = Response.objects.get(research_id="A05_FS10")
    context = browser.new_context()
    page = context.new_page()
    login(page, app_server.url, "rater1")
    open_sheet(page, app_server.url, code_for("rater1", response))
    page.focus("input[name='dims.s2.focus'][value='1']")
    page.keyboard.press("7")
    page.wait_for_function(SAVED)

    app_server.kill()  # mid-session
    page.focus("#f-items-1-1-classification")
    page.keyboard.type("Technology")
    page.keyboard.press("Tab")
    page.keyboard.press("2")  # Elaboration: needs the Yes classification saved first
    page.keyboard.press("Tab")
    page.keyboard.press("1")
    page.focus("#f-comments-1")
    page.keyboard.type("typed while the server was down")
    page.wait_for_selector("#banner[data-kind=warn]:not([hidden])")
    assert "cannot be reached" in page.text_content("#banner")
    page.focus("input[name='dims.s6.development'][value='1']")
    page.keyboard.press("0")  # 10, typed during the retries
    stored = page.evaluate(
        "() => Object.keys(localStorage).filter(k => k.startsWith('teamllm.draft.')).length"
    )
    assert stored == 1  # kept in the browser too
    assert _sheet(response).version == 1  # nothing of it reached the database yet

    app_server.start()
    page.wait_for_function(SAVED, timeout=30000)
    assert page.is_hidden("#banner")
    sheet = _sheet(response)
    item = _stored(sheet).ideas[1][0]
    assert (item.category, item.elaboration, item.originality) == ("Technology", 2, 1)
    assert sheet.comments["1"] == "typed while the server was down"
    assert _stored(sheet).dimensions["s6.development"] == 10
    assert _stored(sheet).dimensions["s2.focus"] == 7
    assert page.text_content("#total-overall") == str(sheet.overall) == str(2 + 2 + 1 + 7 + 10)
    assert (
        page.evaluate("() => Object.keys(localStorage).filter(k => k.startsWith('teamllm.draft.')).length")
        == 0
    )
    context.close()


def test_a_reload_while_saves_fail_loses_nothing(demo, app_server, browser):
    response = Response.objects.get(research_id="A05_FS10")
    context = browser.new_context()
    page = context.new_page()
    login(page, app_server.url, "rater1")
    open_sheet(page, app_server.url, code_for("rater1", response))
    page.route("**/save/", lambda route: route.abort())  # the network drops every save
    page.focus("#f-texts-kvp")
    page.keyboard.type("reduce microplastics")
    page.focus("input[name='dims.s2.purpose'][value='0']")
    page.keyboard.press("3")
    page.wait_for_selector("#banner[data-kind=warn]:not([hidden])")
    page.reload()
    page.wait_for_selector("html[data-sheet-ready]")
    assert page.input_value("#f-texts-kvp") == "reduce microplastics"  # restored from the browser
    assert page.is_checked("input[name='dims.s2.purpose'][value='3']")
    page.unroute("**/save/")
    if page.is_visible("#banner-retry"):
        page.click("#banner-retry")
    page.wait_for_function(SAVED, timeout=30000)
    sheet = _sheet(response)
    assert sheet.kvp == "reduce microplastics"
    assert _stored(sheet).dimensions["s2.purpose"] == 3
    context.close()

"""Restart to answering: stop a running gunicorn and start it again as it was started, timing
from the new start until a page answers 200 (a deploy or a crash, as the raters meet it).

    .venv/bin/python bench/restart_to_answer.py --pidfile var/load/gunicorn.pid \\
        --url http://127.0.0.1:8100/accounts/login/ --repeat 5
    .venv/bin/python bench/restart_to_answer.py --pidfile var/load/gunicorn.pid --login load-r01 \\
        --url http://127.0.0.1:8100/scoring/ --sheet --repeat 5

The server is started again with the command line, working directory and environment of the
running master (read from /proc), so the same script restarts this project's gunicorn and a
peer's (Potato's). ``--login USER`` logs in to this project first (the session outlives the
restart: sessions live in the database and Redis); ``--sheet`` then times the rater's first
sheet of the queue (its page with the scoring widgets), not only the queue. Prints each
restart's seconds and their median. No Django in this process.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import statistics
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

PASSWORD = "load-pass-2026"  # load_seed.py's
DEADLINE_SECONDS = 120  # a server not answering by then is a failed restart, not a sample


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # the 302's cookies are read, not followed
        return None


class Browser:
    """Cookies kept by hand: the production cookies are Secure, and this speaks plain HTTP to
    the server behind the would-be proxy (as load_test.py)."""

    def __init__(self) -> None:
        self.cookies: dict[str, str] = {}
        self.opener = urllib.request.build_opener(_NoRedirect)

    def open(
        self, url: str, data: bytes | None = None, headers: dict[str, str] | None = None
    ) -> bytes | None:
        """The page's body on a 200, else None (a refused connection included)."""
        request = urllib.request.Request(url, data, dict(headers or {}))  # noqa: S310 - http(s): main checks
        if self.cookies:
            request.add_header("Cookie", "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
        try:
            with self.opener.open(request, timeout=5) as reply:
                body = reply.read()
                headers_in = reply.headers
        except urllib.error.HTTPError as exc:
            headers_in, body = exc.headers, b""
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return None
        for cookie in headers_in.get_all("Set-Cookie") or ():
            name, _, rest = cookie.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        return body or None


def login(browser: Browser, base: str, username: str) -> None:
    page = (browser.open(base + "/accounts/login/") or b"").decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    form = {
        "username": username,
        "password": PASSWORD,
        "csrfmiddlewaretoken": token.group(1) if token else "",
    }
    browser.open(
        base + "/accounts/login/",
        urllib.parse.urlencode(form).encode(),
        {"Referer": base + "/accounts/login/"},
    )
    if "sessionid" not in browser.cookies:
        raise SystemExit(f"could not log in as {username}")


def _running(pid: int) -> bool:
    """Whether ``pid`` still runs (a master this script started ends as its zombie child)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    if state == "Z":
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        return False
    return True


def _pid(pidfile: Path) -> int | None:
    try:
        return int(pidfile.read_text().strip())
    except (OSError, ValueError):
        return None


def restart(pidfile: Path) -> float:
    """Stop the master in ``pidfile``, start it again as it was; the start's monotonic time."""
    pid = _pid(pidfile)
    if pid is None or not _running(pid):
        raise SystemExit(f"no running master in {pidfile}")
    argv = Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").split(b"\0")
    env = dict(
        item.split(b"=", 1) for item in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0") if b"=" in item
    )
    cwd = os.readlink(f"/proc/{pid}/cwd")
    os.kill(pid, signal.SIGTERM)
    while _running(pid):
        time.sleep(0.05)
    started = time.monotonic()
    log = (pidfile.parent / "restart.log").open("ab")  # the server's own output, if it has no log file
    subprocess.Popen(  # noqa: S603 - the same command line the operator started
        argv, cwd=cwd, env=env, stdout=log, stderr=log, start_new_session=True
    )
    return started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pidfile", type=Path, required=True, help="the running gunicorn master's")
    parser.add_argument("--url", required=True, help="the page that must answer 200")
    parser.add_argument("--login", default="", help="a rater of load_seed.py to log in as first")
    parser.add_argument("--sheet", action="store_true", help="time the queue's first sheet, not the queue")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if urllib.parse.urlsplit(args.url).scheme not in ("http", "https"):
        parser.error("--url must be an http or https URL")
    browser = Browser()
    parts = urllib.parse.urlsplit(args.url)
    base = f"{parts.scheme}://{parts.netloc}"
    if args.login:
        login(browser, base, args.login)
    url = args.url
    if args.sheet:
        queue = browser.open(args.url) or b""
        code = next(c for c in re.findall(rb'href="/scoring/([A-Za-z0-9_-]+)/"', queue) if c != b"workbooks")
        url = f"{base}/scoring/{code.decode()}/"
    seconds = []
    for _ in range(args.repeat):
        time.sleep(2)  # the previous server settled
        old_pid = _pid(args.pidfile)
        started = restart(args.pidfile)
        deadline = started + DEADLINE_SECONDS
        while browser.open(url) is None:
            if time.monotonic() > deadline:
                raise SystemExit(f"{url} did not answer within {DEADLINE_SECONDS} s of the start")
            time.sleep(0.05)
        seconds.append(time.monotonic() - started)
        print(f"{url}: answered {seconds[-1]:.2f} s after the start", flush=True)
        # the next restart needs the new master's pid: written by it, not the old one's
        while _pid(args.pidfile) in (None, old_pid) or not _running(_pid(args.pidfile) or 0):
            if time.monotonic() > deadline:
                raise SystemExit(f"no new master's pid in {args.pidfile}")
            time.sleep(0.05)
    print(f"median {statistics.median(seconds):.2f} s, min {min(seconds):.2f}, max {max(seconds):.2f}")


if __name__ == "__main__":
    main()

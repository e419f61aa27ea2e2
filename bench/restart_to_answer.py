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
restart's seconds and their median. The client is load_test.py's (its login and cookies kept
by hand: the production cookies are Secure, and it speaks plain HTTP). No Django in this process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import statistics
import subprocess
import time
import urllib.parse
from pathlib import Path

from load_test import QUEUE_LINK, Session, Stats, login

DEADLINE_SECONDS = 120  # a server not answering by then is a failed restart, not a sample
ANSWER_SECONDS = 5  # one poll's wait for an answer


async def answered(session: Session, path: str) -> bool:
    """Whether ``path`` answers 200 now (a refused or unanswered connection is a no)."""
    try:
        reply = await asyncio.wait_for(session.request("GET", path), ANSWER_SECONDS)
    except (OSError, TimeoutError):
        return False
    return reply.status == 200


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


async def run(args: argparse.Namespace, base: str, path: str) -> list[float]:
    session = Session(base)
    if args.login and not await login(session, base, args.login, Stats()):
        raise SystemExit(f"could not log in as {args.login}")
    if args.sheet:
        queue = await session.request("GET", path)
        code = next(c for c in QUEUE_LINK.findall(queue.body) if c != b"workbooks")  # not a sheet
        path = f"/scoring/{code.decode()}/"
    seconds = []
    for _ in range(args.repeat):
        await asyncio.sleep(2)  # the previous server settled
        old_pid = _pid(args.pidfile)
        started = restart(args.pidfile)
        deadline = started + DEADLINE_SECONDS
        while not await answered(session, path):
            if time.monotonic() > deadline:
                raise SystemExit(f"{path} did not answer within {DEADLINE_SECONDS} s of the start")
            await asyncio.sleep(0.05)
        seconds.append(time.monotonic() - started)
        print(f"{path}: answered {seconds[-1]:.2f} s after the start", flush=True)
        # the next restart needs the new master's pid: written by it, not the old one's
        while _pid(args.pidfile) in (None, old_pid) or not _running(_pid(args.pidfile) or 0):
            if time.monotonic() > deadline:
                raise SystemExit(f"no new master's pid in {args.pidfile}")
            await asyncio.sleep(0.05)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pidfile", type=Path, required=True, help="the running gunicorn master's")
    parser.add_argument("--url", required=True, help="the page that must answer 200 (plain http)")
    parser.add_argument("--login", default="", help="a rater of load_seed.py to log in as first")
    parser.add_argument("--sheet", action="store_true", help="time the queue's first sheet, not the queue")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    parts = urllib.parse.urlsplit(args.url)
    if parts.scheme != "http":
        parser.error("--url must be an http URL (load_test.py's client speaks plain HTTP)")
    seconds = asyncio.run(run(args, f"http://{parts.netloc}", parts.path or "/"))
    print(f"median {statistics.median(seconds):.2f} s, min {min(seconds):.2f}, max {max(seconds):.2f}")


if __name__ == "__main__":
    main()

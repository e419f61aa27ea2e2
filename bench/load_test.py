"""Load test: N raters over HTTP against a running server (gunicorn + PostgreSQL).

    .venv/bin/python bench/load_test.py --url http://127.0.0.1:8100 --raters 8 --duration 60 \\
        --mode rater --server-pid "$(cat var/load-gunicorn.pid)"

The client is this file's own: asyncio streams speaking HTTP/1.1, one new TCP
connection per request (``Connection: close``), as a browser behind a proxy that
does not pool would. No Django in this process (only the pure ``studies.rubric``).

Modes:

- ``rater``: each rater logs in, opens the first sheet of their queue that is not
  submitted, fills it the way the page does (an autosave batch of 2-6 changes every
  1-3 s of think time, ``--think`` scales the pause), submits it, goes back to the
  queue and opens the next sheet.
- ``whole``: each rater opens one sheet and saves all 102 fields of it in one request,
  again and again without pause (each time every field changes: two value sets take
  turns), which is the "whole sheet in one request" case.

Prints per kind of request: count, errors, median / p95 ms, and the throughput;
with ``--server-pid`` (gunicorn's master) also the web tier's memory, sampled every
second: the largest sum of RSS of the master and its workers, and of PSS
(proportional: pages shared by forked workers are counted once overall), and the
web tier's CPU time per timed request; with ``--pg-database NAME`` also the CPU time
of the PostgreSQL backends serving that database (and the WAL writer) per request.
Two cores serve at most 2000 / (web + database + client) CPU ms requests per second.
``--json FILE`` appends the figures as one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from studies.rubric import load_rubric  # noqa: E402  (pure: no Django)

PASSWORD = "load-pass-2026"


@dataclass
class Reply:
    status: int
    headers: list[tuple[str, str]]
    body: bytes

    def cookies(self) -> dict[str, str]:
        out = {}
        for name, value in self.headers:
            if name == "set-cookie":
                key, _, rest = value.partition("=")
                out[key.strip()] = rest.split(";", 1)[0]
        return out

    def header(self, name: str) -> str:
        return next((v for k, v in self.headers if k == name), "")


class Session:
    """One rater's browser: cookies (kept by hand: the production cookies are Secure,
    and this client speaks plain HTTP to the server behind the would-be proxy)."""

    def __init__(self, base: str):
        parts = urlsplit(base)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.cookies: dict[str, str] = {}

    async def request(self, method: str, path: str, body: bytes = b"", headers: dict | None = None) -> Reply:
        reader, writer = await asyncio.open_connection(self.host, self.port)
        try:
            lines = [
                f"{method} {path} HTTP/1.1",
                f"Host: {self.host}:{self.port}",
                "Connection: close",
                "Accept-Language: en",
                f"Content-Length: {len(body)}",
            ]
            if self.cookies:
                lines.append("Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
            lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
            writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
            await writer.drain()
            raw = await reader.read()  # the server closes the connection after the reply
        finally:
            writer.close()
        head, _, payload = raw.partition(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        hdrs = [(k.strip().lower(), v.strip()) for k, _, v in (h.partition(":") for h in header_lines)]
        if any(k == "transfer-encoding" and "chunked" in v for k, v in hdrs):
            payload = _unchunk(payload)
        reply = Reply(int(status_line.split()[1]), hdrs, payload)
        self.cookies.update(reply.cookies())
        return reply

    async def post_json(self, path: str, data: dict, referer: str) -> Reply:
        return await self.request(
            "POST",
            path,
            json.dumps(data).encode(),
            {
                "Content-Type": "application/json",
                "X-CSRFToken": self.cookies.get("csrftoken", ""),
                "Referer": referer,
            },
        )


def _unchunk(data: bytes) -> bytes:
    out, rest = b"", data
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        out, rest = out + rest[:size], rest[size + 2 :]
    return out


@dataclass
class Stats:
    times: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    error_samples: list[str] = field(default_factory=list)

    def add(self, kind: str, ms: float, ok: bool, note: str = "") -> None:
        self.times.setdefault(kind, []).append(ms)
        if not ok:
            self.error(kind, note)

    def error(self, kind: str, note: str) -> None:
        """An error of ``kind`` (a request already timed, or a refusal found in its answer)."""
        self.errors[kind] = self.errors.get(kind, 0) + 1
        if len(self.error_samples) < 5:
            self.error_samples.append(f"{kind}: {note[:200]}")


async def timed(stats: Stats, kind: str, call, ok_status: tuple[int, ...] = (200,)) -> Reply | None:
    t0 = time.perf_counter()
    try:
        reply = await call
    except OSError as exc:
        stats.add(kind, (time.perf_counter() - t0) * 1000, False, repr(exc))
        return None
    ok = reply.status in ok_status
    stats.add(kind, (time.perf_counter() - t0) * 1000, ok, f"{reply.status} {reply.body[:200]!r}")
    return reply


def whole_sheet(variant: int) -> list[list]:
    """Every field of the form (102), all valid; the two variants differ in every field."""
    rubric = load_rubric()
    changes: list[list] = []
    for step in rubric.steps:
        for pos in range(1, step.item_count + 1) if step.has_items else ():
            base = f"items.{step.number}.{pos}"
            if step.kind == "ideas":
                changes.append([f"{base}.classification", rubric.category_keys[(pos + variant) % 3]])
            changes += [[f"{base}.{spec.key}", spec.max - variant] for spec in step.item_scores]
            changes.append([f"{base}.comment", f"comment {variant} {step.number}.{pos}"])
        changes += [[f"dims.{d.key}", d.max - 1 - variant] for d in step.scored_dimensions]
        changes += [[f"texts.{t.key}", f"{t.key} text {variant}"] for t in step.texts]
        changes.append([f"comments.{step.number}", f"step {step.number} comment {variant}"])
    return changes


SHEET_DATA = re.compile(rb'<script id="sheet-data" type="application/json">(.*?)</script>', re.S)
RUN_ID = time.time_ns()  # this run's, in every autosave batch id
QUEUE_LINK = re.compile(rb'href="/scoring/([A-Za-z0-9_-]+)/"')
CSRF_INPUT = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]+)"')


async def login(session: Session, base: str, username: str, stats: Stats) -> bool:
    page = await timed(stats, "login page", session.request("GET", "/accounts/login/"))
    if page is None:
        return False
    token = CSRF_INPUT.search(page.body)
    form = urlencode(
        {
            "username": username,
            "password": PASSWORD,
            "csrfmiddlewaretoken": token.group(1).decode() if token else "",
        }
    ).encode()
    reply = await timed(
        stats,
        "login",
        session.request(
            "POST",
            "/accounts/login/",
            form,
            {"Content-Type": "application/x-www-form-urlencoded", "Referer": base + "/accounts/login/"},
        ),
        ok_status=(302,),
    )
    return reply is not None and reply.status == 302


async def open_sheet(session: Session, code: str, stats: Stats) -> dict | None:
    reply = await timed(stats, "open sheet", session.request("GET", f"/scoring/{code}/"))
    match = SHEET_DATA.search(reply.body) if reply is not None else None
    return json.loads(match.group(1)) if match else None


async def rater_loop(
    n: int, args, stats: Stats, clock: dict, ready: asyncio.Barrier, clock_set: asyncio.Event
) -> None:
    base = args.url.rstrip("/")
    session = Session(base)
    logged_in = await login(session, base, f"load-r{n:02d}", stats)
    await ready.wait()  # every rater logged in before the clock starts
    await clock_set.wait()
    deadline = clock["deadline"]
    if not logged_in:
        return
    rng = random.Random(n)
    full = whole_sheet(0)
    wholes = [whole_sheet(1), full]  # built once: the client's CPU shares the server's cores
    while time.monotonic() < deadline:
        queue = await timed(stats, "queue", session.request("GET", "/scoring/"))
        if queue is None:
            return
        codes = [c.decode() for c in QUEUE_LINK.findall(queue.body) if c != b"workbooks"]  # not a sheet
        data = None
        for code in codes:
            data = await open_sheet(session, code, stats)
            if data and not data["readonly"]:
                break
            data = None
        if data is None:
            return  # every sheet of this rater submitted
        code, version = data["code"], data["version"]
        referer = f"{base}/scoring/{code}/"
        if args.mode == "whole":
            for i in range(10**9):
                if time.monotonic() >= deadline:
                    return
                body = {"sheet": data["sheet"], "batch_id": f"w{n}-{i}-{time.time_ns()}",
                        "expected_version": version, "changes": wholes[i % 2]}  # fmt: skip
                reply = await timed(
                    stats, "whole-sheet save", session.post_json(data["save_url"], body, referer)
                )
                if reply is None or reply.status != 200:
                    return
                version = json.loads(reply.body)["version"]
        start = 0
        while start < len(full):
            await asyncio.sleep(rng.uniform(1, 3) * args.think)
            if time.monotonic() >= deadline:
                return
            size = rng.randint(2, 6)
            batch = full[start : start + size]
            # unique per run too: a later run's rater may come back to this sheet (409 batch_reused)
            body = {"sheet": data["sheet"], "batch_id": f"r{n}-{code}-{start}-{RUN_ID}",
                    "expected_version": version, "changes": batch}  # fmt: skip
            reply = await timed(stats, "autosave", session.post_json(data["save_url"], body, referer))
            if reply is None or reply.status != 200:
                return
            version = json.loads(reply.body)["version"]
            start += size
        await asyncio.sleep(rng.uniform(1, 3) * args.think)
        reply = await timed(
            stats,
            "submit",
            session.post_json(
                data["submit_url"], {"sheet": data["sheet"], "expected_version": version}, referer
            ),
        )
        if reply is None or reply.status != 200:
            return


def _children(pid: int) -> list[int]:
    out = [pid]
    for task in Path(f"/proc/{pid}/task").glob("*"):
        for child in (task / "children").read_text().split():
            out += _children(int(child))
    return out


def web_memory(pid: int) -> tuple[float, float, int]:
    """RSS and PSS (MB) of a process and all its descendants, and how many they are."""
    rss = pss = 0
    pids = _children(pid)
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                if line.startswith("Rss:"):
                    rss += int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss += int(line.split()[1])
        except (FileNotFoundError, ProcessLookupError):
            continue
    return rss / 1024, pss / 1024, len(pids)


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU of a process so far (``/proc/<pid>/stat``), in seconds; None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


class CpuMeter:
    """CPU time a changing set of processes spends from now on: sampled every second, so a
    database connection closed and opened again (``DB_CONN_MAX_AGE``) is counted too, up to
    its last second."""

    def __init__(self, find):
        self.find, self.seen, self.total = find, {}, 0.0
        for pid in find():
            self.seen[pid] = cpu_seconds(pid) or 0.0

    def sample(self) -> None:
        for pid in self.find():
            now = cpu_seconds(pid)
            if now is not None:
                self.total += max(0.0, now - self.seen.get(pid, 0.0))  # a new process: all of it
                self.seen[pid] = now


def postgres_backends(database: str) -> list[int]:
    """The PostgreSQL server processes serving ``database`` (their titles name it), and the WAL
    writer, which writes what their commits log."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            title = stat.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if title.startswith("postgres: ") and (f" {database} " in title or "walwriter" in title):
            out.append(int(stat.parent.name))
    return out


async def sample_server(pid: int, meters: list[CpuMeter], peak: dict, stop: asyncio.Event) -> None:
    while not stop.is_set():
        if pid:
            rss, pss, count = web_memory(pid)
            if rss > peak.get("rss", 0):
                peak.update(rss=rss, processes=count)
            peak["pss"] = max(peak.get("pss", 0), pss)
        for meter in meters:
            meter.sample()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 1.0)
    for meter in meters:
        meter.sample()


async def run(args, loop=rater_loop) -> dict:
    stats = Stats()
    ready = asyncio.Barrier(args.raters + 1)
    clock: dict[str, float] = {}
    clock_set = asyncio.Event()
    tasks = [
        asyncio.create_task(loop(n, args, stats, clock, ready, clock_set)) for n in range(1, args.raters + 1)
    ]
    await ready.wait()  # every rater has logged in
    logins = {"times": stats.times, "errors": stats.errors}
    stats.times, stats.errors = {}, {}
    peak: dict = {}
    stop = asyncio.Event()
    web = CpuMeter(lambda: _children(args.server_pid) if args.server_pid else [])
    database = CpuMeter(lambda: postgres_backends(args.pg_database) if args.pg_database else [])
    sampler = asyncio.create_task(sample_server(args.server_pid, [web, database], peak, stop))
    started = time.monotonic()
    clock["deadline"] = started + args.duration
    clock_set.set()
    await asyncio.gather(*tasks)
    elapsed = time.monotonic() - started
    stop.set()
    await sampler
    peak["cpu"] = (web.total, database.total)
    return report(args, stats, elapsed, peak, logins)


def report(args, stats: Stats, elapsed: float, peak: dict, logins: dict) -> dict:
    rows = {}
    for kind, times in stats.times.items():
        if not times:
            continue
        p95 = statistics.quantiles(times, n=20)[18] if len(times) >= 20 else max(times)
        rows[kind] = {
            "n": len(times),
            "errors": stats.errors.get(kind, 0),
            "median": round(statistics.median(times), 1),
            "p95": round(p95, 1),
            "per_s": round(len(times) / elapsed, 2),
        }
    out = {
        "mode": args.mode,
        "raters": args.raters,
        "seconds": round(elapsed, 1),
        "requests": rows,
        "errors": sum(stats.errors.values()),
        "error_samples": stats.error_samples,
        "web_rss_mb": round(peak.get("rss", 0)),
        "web_pss_mb": round(peak.get("pss", 0)),
        "web_processes": peak.get("processes", 0),
        "label": args.label,
        "login_errors": sum(logins["errors"].values()),
    }
    timed = sum(r["n"] for r in rows.values())
    web_cpu, db_cpu = peak.get("cpu", (0.0, 0.0))
    if timed:
        out["web_cpu_ms_per_request"] = round(1000 * web_cpu / timed, 2) if args.server_pid else None
        out["db_cpu_ms_per_request"] = round(1000 * db_cpu / timed, 2) if args.pg_database else None
    print(
        f"{args.label} mode={args.mode} raters={args.raters} {elapsed:.0f}s errors={out['errors']}"
        f" login errors={out['login_errors']}"
    )
    print(f"{'request':<18} {'n':>6} {'err':>4} {'median':>8} {'p95':>8} {'per s':>7}")
    for kind, r in rows.items():
        print(f"{kind:<18} {r['n']:>6} {r['errors']:>4} {r['median']:>8} {r['p95']:>8} {r['per_s']:>7}")
    if peak.get("rss"):
        print(
            f"web tier: {out['web_processes']} processes, RSS {out['web_rss_mb']} MB, PSS {out['web_pss_mb']} MB"
        )
    if out.get("web_cpu_ms_per_request") is not None:
        print(f"web tier CPU per request: {out['web_cpu_ms_per_request']} ms", end="")
        if out.get("db_cpu_ms_per_request") is not None:
            print(f", PostgreSQL ({args.pg_database}) {out['db_cpu_ms_per_request']} ms", end="")
        print()
    for sample in stats.error_samples:
        print("  error:", sample)
    return out


def main(loop=rater_loop, description: str = __doc__) -> None:
    """The command line; ``loop`` is one rater's client (``load_peer_potato.py`` passes its own)."""
    parser = argparse.ArgumentParser(description=description.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8100")
    parser.add_argument("--raters", type=int, default=8)
    parser.add_argument("--duration", type=float, default=60)
    parser.add_argument("--mode", choices=("rater", "whole"), default="rater")
    parser.add_argument("--think", type=float, default=1.0, help="scales the 1-3 s pause between autosaves")
    parser.add_argument("--server-pid", type=int, default=0, help="gunicorn master pid, for memory")
    parser.add_argument(
        "--pg-database", default="", help="database name: also count its PostgreSQL backends' CPU (same host)"
    )
    parser.add_argument("--label", default="")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    out = asyncio.run(run(args, loop))
    if args.json:
        with args.json.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()

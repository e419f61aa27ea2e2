"""Benchmark: web and worker memory on a full-size study (issue 40), at 1x and 10x side by side.

    LOAD_DB=scale1  .venv/bin/python bench/bench_scale_memory.py
    LOAD_DB=scale10 .venv/bin/python bench/bench_scale_memory.py

On a database ``full_study.py`` made and ``bench_scale_results.py`` scored (its researcher
``scale-researcher``): gunicorn with the production settings as the Dockerfile runs it
(``load_server.sh`` with ``KEEP_DB=1``, its private Redis) and one Celery worker with the same
settings, the caches cold. Over HTTP, as the users would: the admin opens the held responses, assignments, workload,
workbooks and study pages, the researcher the results page (each three times), then starts the
results workbook, which the worker builds. Prints the web tier's resident memory (master and
workers: RSS, and PSS where the kernel gives it) after the pages, and the worker's peak (VmHWM of
its processes) after the workbook. Stops what it started.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "var" / "load"
PORT = int(os.environ.get("PORT", "8150"))
REDIS_PORT = int(os.environ.get("REDIS_PORT", "6392"))
DB = os.environ.get("LOAD_DB", "scale1")
BASE = f"http://127.0.0.1:{PORT}"
PASSWORDS = {"full-admin": "full-pass-2026", "scale-researcher": "scale-pass-2026"}


def _env() -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "teamllm_web.settings.production",
        "SECRET_KEY": "load-test-only-key-4f9c2a7e1b8d6035-not-for-any-real-server",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{DB}",
        "REDIS_URL": f"redis://127.0.0.1:{REDIS_PORT}/0",
        "SECURE_SSL_REDIRECT": "0",
        "SECURE_HSTS_SECONDS": "0",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "TEAMLLM_VAR_DIR": str(RUN / "var"),
        "STATIC_ROOT": str(RUN / "static"),
        "CELERY_QUEUE": "load",  # the queue load_server.sh gives the web tier
        "LOG_LEVEL": "WARNING",
        "AXES_FAILURE_LIMIT": "1000",
        "MPLCONFIGDIR": str(RUN / "mpl"),
    }


def _memory_kb(pid: int) -> tuple[int, int, int]:
    """(RSS, PSS, peak RSS) of a process in kB (PSS 0 where smaps_rollup is not readable)."""
    status = Path(f"/proc/{pid}/status").read_text()
    rss = int(re.search(r"VmRSS:\s+(\d+)", status)[1])
    hwm = int(re.search(r"VmHWM:\s+(\d+)", status)[1])
    try:
        pss = int(re.search(r"Pss:\s+(\d+)", Path(f"/proc/{pid}/smaps_rollup").read_text())[1])
    except (OSError, TypeError):
        pss = 0
    return rss, pss, hwm


def _tree(pid: int) -> list[int]:
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [pid, *(c for child in children for c in _tree(int(child)))]


class _Client:
    """A signed-in browser: cookies kept by hand (the production cookies are Secure, and this
    server is plain HTTP on the loopback)."""

    def __init__(self, username: str) -> None:
        self.cookies: dict[str, str] = {}
        self.get("/accounts/login/")
        self.post("/accounts/login/", {"username": username, "password": PASSWORDS[username]})
        assert "sessionid" in self.cookies, username

    def _kept(self, reply: requests.Response) -> requests.Response:
        for one in [*reply.history, reply]:
            self.cookies.update(one.cookies.get_dict())
        return reply

    def _header(self) -> dict[str, str]:
        return {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}

    def get(self, url: str, params: dict[str, str] | None = None) -> requests.Response:
        return self._kept(requests.get(f"{BASE}{url}", params=params, headers=self._header(), timeout=600))

    def post(self, url: str, data: dict[str, str]) -> requests.Response:
        data = {**data, "csrfmiddlewaretoken": self.cookies.get("csrftoken", "")}
        headers = {**self._header(), "Referer": f"{BASE}{url}"}
        reply = requests.post(f"{BASE}{url}", data=data, headers=headers, timeout=600, allow_redirects=False)
        self._kept(reply)
        location = reply.headers.get("Location")
        return self.get(location.removeprefix(BASE)) if reply.is_redirect and location else reply


def main() -> None:
    env = _env()
    subprocess.run(
        [str(ROOT / ".venv/bin/python"), "manage.py", "collectstatic", "--noinput", "-v0"],
        env=env,
        cwd=ROOT,
        check=True,
    )
    subprocess.run(["bash", str(ROOT / "bench/load_server.sh")], env={**env, "KEEP_DB": "1", "LOAD_DB": DB, "PORT": str(PORT), "REDIS_PORT": str(REDIS_PORT)}, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    master = int((RUN / "gunicorn.pid").read_text())
    # cold: nothing of an earlier run's results left in the private Redis
    subprocess.run(["redis-cli", "-p", str(REDIS_PORT), "flushall"], check=True, stdout=subprocess.DEVNULL)
    worker = subprocess.Popen(
        [str(ROOT / ".venv/bin/celery"), "-A", "teamllm_web", "worker", "-Q", "load", "--concurrency", "1", "-l", "WARNING"],
        env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        admin, researcher = _Client("full-admin"), _Client("scale-researcher")
        study = re.search(
            r'name="study"[^>]*>.*?<option value="(\d+)"', admin.get("/manage/workload/").text, re.S
        )
        study_id = study[1] if study else "1"
        pages = [
            (admin, "/manage/responses/held/"), (admin, "/manage/assignments/"), (admin, "/manage/workload/"),
            (admin, "/manage/workbooks/"), (admin, f"/manage/studies/{study_id}/"), (researcher, "/research/"),
        ]  # fmt: skip
        for _ in range(3):
            for client, url in pages:
                reply = client.get(url, params={"study": study_id})
                assert reply.status_code == 200, (url, reply.status_code)
        web = [_memory_kb(pid) for pid in _tree(master)]
        print(
            f"{DB}: web tier after the pages, {len(web)} processes: RSS {sum(m[0] for m in web) / 1024:.0f} MB, "
            f"PSS {sum(m[1] for m in web) / 1024:.0f} MB, the largest process's peak {max(m[2] for m in web) / 1024:.0f} MB"
        )
        started = time.perf_counter()
        reply = researcher.post("/research/exports/", {"kind": "results", "study": study_id})
        job = re.search(r"/research/exports/(\d+)/", reply.text)
        assert job, reply.text[:500]
        while "download" not in (status := researcher.get(f"/research/exports/{job[1]}/").text):
            assert time.perf_counter() - started < 600 and "failed" not in status.lower(), status[:500]
            time.sleep(1)
        took = time.perf_counter() - started
        peaks = [_memory_kb(pid)[2] for pid in _tree(worker.pid)]
        print(
            f"{DB}: results workbook through the worker in {took:.1f} s; worker peak RSS {max(peaks) / 1024:.0f} MB (of {len(peaks)} processes)"
        )
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        os.kill(master, signal.SIGTERM)
        worker.wait(timeout=60)


if __name__ == "__main__":
    sys.exit(main())

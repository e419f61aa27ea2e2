"""Exports on shared storage, for real: an S3-compatible server (moto's server mode, over HTTP on
a free port), the web service (gunicorn) and a Celery worker "on another host" (its own working
directory and data directory, so it shares no disk with the web process). A researcher starts the
export on the page; the worker writes the file to the bucket; the web process streams the same
bytes back. With the storage unreachable the export fails visibly with a clear message and nothing
is lost: once the storage is back the same export succeeds."""

from __future__ import annotations

import csv
import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import boto3
import pytest
from django.conf import settings
from openpyxl import load_workbook

from research.models import STORAGE_ERROR_PREFIX, ExportJob
from research.selectors.long_tables import ITEM_HEADER
from tests.browser import free_port, http_wait, login
from tests.workers import ROOT, WorkerProcess, child_env, session_worker_stop

pytestmark = [
    pytest.mark.fault,
    pytest.mark.browser,
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    # the filesystem broker is a folder of one host: hosts apart share a network broker
    pytest.mark.skipif(
        not settings.REDIS_URL, reason="a worker on another host needs a network broker (REDIS_URL unset)"
    ),
]

BUCKET = "teamllm-exports"
KEYS = {"S3_ACCESS_KEY_ID": "testing", "S3_SECRET_ACCESS_KEY": "testing", "S3_REGION": "us-east-1"}


class S3Server:
    """``moto_server`` (moto's S3-compatible HTTP server) as a child process."""

    def __init__(self, port: int):
        self.port = port
        self.endpoint = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 30) -> S3Server:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                self.client().list_buckets()
                break
            except Exception:
                time.sleep(0.2)
        else:
            raise RuntimeError("moto_server did not start")
        self.client().create_bucket(Bucket=BUCKET)
        return self

    def client(self):
        return boto3.client(
            "s3", endpoint_url=self.endpoint, region_name="us-east-1",
            aws_access_key_id="testing", aws_secret_access_key="testing",
        )  # fmt: skip

    def object(self, key: str) -> bytes:
        return self.client().get_object(Bucket=BUCKET, Key=key)["Body"].read()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


class Hosts:
    """The web service (gunicorn) and a worker, each with its own data directory, both
    configured for the S3 storage at ``endpoint`` as an operator would (the S3_* variables)."""

    def __init__(self, endpoint: str, tmp: Path, web_env: dict[str, str] | None = None):
        self.web_dir, self.worker_dir = tmp / "web-host", tmp / "worker-host"
        self.web_dir.mkdir()
        self.worker_dir.mkdir()
        storage = {
            "TEST_FILE_STORAGE_FROM_ENV": "1",
            "FILE_STORAGE_BACKEND": "s3",
            "S3_BUCKET": BUCKET,
            "S3_ENDPOINT_URL": endpoint,
            **KEYS,
        }
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        web_env = {
            "TEAMLLM_VAR_DIR": str(self.web_dir),
            "MEDIA_ROOT": str(self.web_dir / "media"),
            **(web_env or {}),
        }
        self.web = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "teamllm_web.wsgi:application",
             "--bind", f"127.0.0.1:{self.port}", "--workers", "1", "--threads", "4"],
            cwd=ROOT, env=child_env(**storage, **web_env),
            stdout=subprocess.DEVNULL, stderr=open(self.web_dir / "gunicorn.log", "wb"),  # noqa: SIM115
            start_new_session=True,
        )  # fmt: skip
        worker_env = {"TEAMLLM_VAR_DIR": str(self.worker_dir), "MEDIA_ROOT": str(self.worker_dir / "media")}
        self.worker = WorkerProcess(concurrency=2, extra_env={**storage, **worker_env}, cwd=self.worker_dir)
        self.worker.start()
        if not http_wait(f"{self.url}/healthz"):
            self.stop()
            raise RuntimeError("gunicorn did not start")

    def local_files(self) -> list[Path]:
        """Export files on either host's disk (there must be none: they live in the bucket)."""
        return [
            path
            for folder in (self.web_dir, self.worker_dir)
            for path in folder.rglob("*")
            if path.suffix in (".xlsx", ".csv", ".zip")
        ]

    def stop(self) -> None:
        self.worker.stop()
        if self.web.poll() is None:
            os.killpg(self.web.pid, signal.SIGTERM)
            self.web.wait(timeout=20)


@pytest.fixture
def hosts_for(tmp_path):
    """Starts the web service and the worker for an S3 endpoint; the session's own worker (local
    storage) is stopped first, so that it takes none of their tasks (``celery_worker`` restarts it)."""
    session_worker_stop()
    started: list[Hosts] = []

    def start(endpoint: str) -> Hosts:
        started.append(Hosts(endpoint, tmp_path))
        return started[-1]

    yield start
    for hosts in started:
        hosts.stop()


@pytest.fixture
def s3_server():
    server = S3Server(free_port()).start()
    yield server
    server.stop()


def _export(page, button: str) -> str:
    """Start an export on the research page as a researcher would; the job's card once it ends."""
    card = page.locator("#export-area .export-job")
    before = card.get_attribute("id") if card.count() else ""
    page.click(f"#exports button:has-text('{button}')")
    page.wait_for_function(
        "(before) => { const c = document.querySelector('#export-area .export-job');"
        " return c && c.id !== before && !c.hasAttribute('hx-get'); }",
        arg=before,
        timeout=120_000,
    )
    return card.inner_html()


def _download(page) -> bytes:
    with page.expect_download() as info:
        page.click("#export-area a:has-text('Download')")
    return Path(info.value.path()).read_bytes()


def test_the_worker_on_another_host_writes_to_s3_and_the_web_serves_the_same_bytes(
    demo, browser, s3_server, hosts_for
):
    hosts = hosts_for(s3_server.endpoint)
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    login(page, hosts.url, "researcher")
    page.goto(f"{hosts.url}/research/")

    assert "The export is ready." in _export(page, "Build the results workbook (.xlsx)")
    job = ExportJob.objects.get(kind="results")
    assert job.status == "done" and job.file.name.startswith(f"exports/{job.pk}/")
    body = _download(page)
    assert body == s3_server.object(job.file.name)  # the bucket's bytes, streamed by the web host
    assert "About" in load_workbook(io.BytesIO(body)).sheetnames

    assert "The export is ready." in _export(page, "Item scores (.csv)")
    items = ExportJob.objects.get(kind="items_csv")
    body = _download(page)
    assert body == s3_server.object(items.file.name)
    rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
    assert tuple(rows[0]) == ITEM_HEADER  # a valid CSV (the demo has no item scores yet)

    keys = {o["Key"] for o in s3_server.client().list_objects_v2(Bucket=BUCKET)["Contents"]}
    assert keys == {job.file.name, items.file.name}
    assert hosts.local_files() == []  # nothing on either host's disk

    # the roles allowed today: a rater is refused the file even though it is in the bucket
    rater = browser.new_context()
    rater_page = rater.new_page()
    login(rater_page, hosts.url, "rater1")
    assert rater_page.request.get(f"{hosts.url}/research/exports/{job.pk}/download").status == 403
    rater.close()
    context.close()


def test_an_unreachable_storage_fails_the_export_visibly_and_loses_nothing(demo, browser, hosts_for):
    s3 = S3Server(free_port())  # its port: nothing listens there yet
    hosts = hosts_for(s3.endpoint)
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    login(page, hosts.url, "researcher")
    page.goto(f"{hosts.url}/research/")

    card = _export(page, "Build the results workbook (.xlsx)")
    assert "the file storage cannot be reached" in card and "Nothing is lost" in card
    failed = ExportJob.objects.get()
    assert failed.status == "failed" and failed.error.startswith(STORAGE_ERROR_PREFIX)
    assert not failed.file and hosts.local_files() == []

    try:
        s3.start()  # the storage is back: the same export, started again, succeeds
        assert "The export is ready." in _export(page, "Build the results workbook (.xlsx)")
        done = ExportJob.objects.get(status="done")
        body = _download(page)
        assert body == s3.object(done.file.name) and body[:2] == b"PK"

        s3.stop()  # the storage goes away again: the download says so (no 500), the job is kept
        reply = page.request.get(f"{hosts.url}/research/exports/{done.pk}/download")
        assert reply.status == 503
        assert "The file storage that holds" in reply.text()
        assert ExportJob.objects.filter(pk=done.pk, status="done").exists()
    finally:
        s3.stop()
    context.close()


def test_a_hung_storage_holds_no_web_thread_long_and_pages_stay_answered(demo, browser, s3_server, tmp_path):
    """Issue 37, finding 2: with the object store paused, downloads held web threads for 180 s
    and 14 at once took every gunicorn thread (/healthz unanswered). Now a download waits at most
    the client's timeouts, at most two per process wait at all, the API answers 503 JSON as
    documented, and /healthz and a rater's page answer throughout."""
    import json
    import threading

    import httpx2
    from django.contrib.auth import get_user_model

    from api.services.tokens import token_create

    session_worker_stop()
    hosts = Hosts(
        s3_server.endpoint, tmp_path, web_env={"S3_READ_TIMEOUT_SECONDS": "2", "S3_MAX_ATTEMPTS": "1"}
    )
    try:
        context = browser.new_context(accept_downloads=True)
        page = context.new_page()
        login(page, hosts.url, "researcher")
        page.goto(f"{hosts.url}/research/")
        assert "The export is ready." in _export(page, "Item scores (.csv)")
        job = ExportJob.objects.get(kind="items_csv")
        cookie = "; ".join(f"{c['name']}={c['value']}" for c in context.cookies())
        token = token_create(
            user=get_user_model().objects.get(username="researcher"), name="t", scope="read", days=1
        )

        def get(path, headers=None, timeout=60):
            started = time.monotonic()
            reply = httpx2.get(f"{hosts.url}{path}", headers=headers or {}, timeout=timeout)
            return reply.status_code, reply.content, time.monotonic() - started

        os.kill(s3_server.proc.pid, signal.SIGSTOP)  # the store hangs: it accepts and never answers
        try:
            results: list[tuple[int, bytes, float]] = []
            downloads = [
                threading.Thread(
                    target=lambda: results.append(
                        get(f"/research/exports/{job.pk}/download", {"Cookie": cookie})
                    )
                )
                for _ in range(8)
            ]
            for thread in downloads:
                thread.start()
            time.sleep(0.5)
            # the web tier answers while downloads wait on the store
            for path in ("/healthz", "/accounts/login/"):
                status, _body, seconds = get(path)
                assert status == 200 and seconds < 3, (path, status, seconds)
            for thread in downloads:
                thread.join(60)
            assert [status for status, _body, _seconds in results] == [503] * 8
            assert max(seconds for _status, _body, seconds in results) < 15  # not 180 s
            assert all(b"The file storage that holds" in body for _status, body, _seconds in results)
            status, body, seconds = get(
                f"/api/v1/exports/{job.pk}/download", {"Authorization": f"Bearer {token.plain}"}
            )
            assert status == 503 and "the export is kept" in json.loads(body)["detail"] and seconds < 3
        finally:
            os.kill(s3_server.proc.pid, signal.SIGCONT)
        assert ExportJob.objects.filter(pk=job.pk, status="done").exists()
        time.sleep(int(settings.STORAGE_RETRY_SECONDS) + 1)  # past the pause after a failure
        status, body, _seconds = get(f"/research/exports/{job.pk}/download", {"Cookie": cookie})
        assert status == 200 and body == s3_server.object(job.file.name)
        context.close()
    finally:
        hosts.stop()

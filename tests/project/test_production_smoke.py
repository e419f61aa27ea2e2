"""Production smoke test: the docker-compose stack, run on this machine without Docker.

It reads ``docker-compose.yml`` and runs each app service's own command with that service's
environment (the Dockerfile's ENV, then ``.env.example`` as the documented ``.env``, then the
service's ``environment:``), with the hostnames ``postgres``/``redis`` pointed at this machine:
a fresh PostgreSQL database (the ``postgres`` service's user and password) and a private
``redis-server`` on a free port (so it can be killed and restarted without touching the
Redis other test sessions share). Then: the one-shot ``migrate``, ``web`` (gunicorn, production
settings) on a free port and ``worker`` (Celery); the health checks exactly as compose runs
them; logins through the HTTPS proxy headers; a full sheet scored and submitted by both raters
through the JSON endpoints and the agreement computed by the worker; an export built by the
worker and downloaded; and the broker killed and restarted mid-submit.

Every process is cleaned up, also when a step fails.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import uuid
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

import psycopg
import pytest
import redis
import yaml

from scoring.score_files import data_a_changes
from studies.rubric import load_rubric
from tests.compose import EXAMPLES, dotenv, env_files, interpolate

pytestmark = pytest.mark.smoke

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
ADMIN_PASSWORD = "smoke-admin-Pw-2026"  # noqa: S105
RATER_PASSWORD = "smoke-rater-Pw-2026"  # noqa: S105
TEXTS = [[f"texts.{k}", "copied"] for k in ("condition_phrase", "stem", "kvp", "purpose")]
# what the image's paths become on this machine
IMAGE_PATHS = ("/var/lib/teamllm", "/app/staticfiles", "/tmp/matplotlib", "/tmp/teamllm-metrics")


# --- what compose would run ------------------------------------------------------------


def dockerfile_env() -> dict[str, str]:
    """The ENV instructions of the Dockerfile (KEY=VALUE form)."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    values: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("ENV "):
            for key, value in re.findall(r"(\w+)=(\S+)", line[4:]):
                values[key] = value
    return values


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _with_host(url: str, host: str, port: int, path: str | None = None) -> str:
    parts = urlsplit(url)
    auth = parts.netloc.rpartition("@")[0]
    netloc = f"{auth}@{host}:{port}" if auth else f"{host}:{port}"
    return urlunsplit((parts.scheme, netloc, parts.path if path is None else path, "", ""))


def _pg_admin_url() -> str:
    url = os.environ.get("DATABASE_URL", "")
    if url.startswith(("postgres://", "postgresql://")):
        return _with_host(url, urlsplit(url).hostname or "127.0.0.1", urlsplit(url).port or 5432, "/postgres")
    return "postgres://postgres@127.0.0.1:5432/postgres"


class Stack:
    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.procs: dict[str, subprocess.Popen] = {}
        self.logs: dict[str, Path] = {}
        self.redis_port = free_port()
        self.web_port = free_port()
        self.db_name = f"teamllm_smoke_{uuid.uuid4().hex[:10]}"
        self.admin_url = _pg_admin_url()
        # the documented .env, with the lines marked "required" filled in as the README says
        # (and a Redis password, as a server whose Redis other hosts reach has)
        self.dotenv = {
            **dotenv(ROOT / ".env.example"),
            "SECRET_KEY": secrets.token_urlsafe(50),
            "POSTGRES_PASSWORD": secrets.token_hex(12),
            "REDIS_PASSWORD": secrets.token_hex(12),
        }
        self.host = self.dotenv["ALLOWED_HOSTS"].split(",")[0].strip()
        self.origin = self.dotenv["CSRF_TRUSTED_ORIGINS"].split(",")[0].strip()
        self.hostname = socket.gethostname()

    # -- environment
    def env(self, service: str) -> dict[str, str]:
        env = {
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
            "HOME": str(self.tmp),
            "LANG": "C.UTF-8",
            "HOSTNAME": self.hostname,
        }
        image = {k: v for k, v in dockerfile_env().items() if k not in ("PATH", "VIRTUAL_ENV")}
        env.update(image)
        for name in env_files(SERVICES[service]):  # as the documented copies of the examples
            env.update(self.dotenv if name == ".env" else dotenv(ROOT / EXAMPLES[name]))
        environment = SERVICES[service].get("environment") or {}
        env.update({k: interpolate(str(v), self.dotenv) for k, v in environment.items()})
        admin = urlsplit(self.admin_url)
        for key, value in list(env.items()):
            parts = urlsplit(value) if "://" in value else None
            if parts and parts.hostname == "postgres":
                env[key] = _with_host(value, admin.hostname, admin.port or 5432, f"/{self.db_name}")
            elif parts and parts.hostname == "redis":
                env[key] = _with_host(value, "127.0.0.1", self.redis_port)
            for path in IMAGE_PATHS:
                if value == path or value.startswith(path + "/"):
                    env[key] = str(self.tmp / path.strip("/").replace("/", "_")) + value[len(path) :]
        return env

    def command(self, service: str) -> list[str]:
        cmd = [interpolate(str(c), self.dotenv) for c in SERVICES[service]["command"]]  # as compose does
        if (BIN / cmd[0]).exists():
            cmd[0] = str(BIN / cmd[0])
        if service == "web":  # the published port, on a free one here
            cmd = [re.sub(r"^0\.0\.0\.0:8000$", f"127.0.0.1:{self.web_port}", c) for c in cmd]
        return cmd

    # -- processes
    def run(
        self, service: str, argv: list[str], *, extra_env=None, timeout=180
    ) -> subprocess.CompletedProcess:
        env = {**self.env(service), **(extra_env or {})}
        result = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
        assert result.returncode == 0, f"{argv}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        return result

    def start(self, name: str, argv: list[str], env: dict[str, str]) -> subprocess.Popen:
        log = self.tmp / f"{name}.log"
        self.logs[name] = log
        with open(log, "ab") as handle:
            proc = subprocess.Popen(
                argv, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.procs[name] = proc
        return proc

    def stop(self, name: str, sig=signal.SIGTERM, timeout: float = 15) -> None:
        proc = self.procs.pop(name, None)
        if proc is None or proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()

    def log_tail(self, chars: int = 2500) -> str:
        return "\n".join(
            f"--- {name} ---\n{path.read_text(errors='replace')[-chars:]}"
            for name, path in self.logs.items()
            if path.exists()
        )

    # -- redis (the compose service "redis", private to this test)
    def redis_start(self) -> None:
        # the compose service's entrypoint and command (its password in a private config file),
        # on a private port, without persistence
        service = SERVICES["redis"]
        argv = [interpolate(str(a), self.dotenv) for a in [*service["entrypoint"], *service["command"]]]
        argv += ["--port", str(self.redis_port), "--bind", "127.0.0.1"]
        argv += ["--save", "", "--appendonly", "no", "--daemonize", "no"]
        env = {k: interpolate(str(v), self.dotenv) for k, v in service["environment"].items()}
        self.start("redis", argv, {**env, "PATH": os.environ.get("PATH", "/usr/bin:/bin")})
        wait_for(lambda: self.redis_ping(), 15, "redis-server did not start", self)

    def redis_kill(self) -> None:
        self.stop("redis", sig=signal.SIGKILL)

    def redis_ping(self) -> bool:
        client = redis.Redis(
            port=self.redis_port,
            password=self.dotenv["REDIS_PASSWORD"],
            socket_timeout=1,
            socket_connect_timeout=1,
        )
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False
        finally:
            client.close()

    # -- postgres (the compose service "postgres": its user, password and a fresh database)
    def database_create(self) -> None:
        pg = {k: interpolate(str(v), self.dotenv) for k, v in SERVICES["postgres"]["environment"].items()}
        user, password = pg["POSTGRES_USER"], pg["POSTGRES_PASSWORD"]
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            with contextlib.suppress(psycopg.errors.DuplicateObject, psycopg.errors.UniqueViolation):
                conn.execute(f"CREATE ROLE {user} LOGIN")
            conn.execute(f"ALTER ROLE {user} PASSWORD '{password}'")
            conn.execute(f'CREATE DATABASE "{self.db_name}" OWNER {user}')

    def database_drop(self) -> None:
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)')

    def sql(self, query: str, *params):
        admin = urlsplit(self.admin_url)
        with psycopg.connect(
            _with_host(self.admin_url, admin.hostname, admin.port or 5432, f"/{self.db_name}")
        ) as conn:
            return conn.execute(query, params).fetchall()

    # -- the compose health checks
    def healthcheck(self, service: str) -> subprocess.CompletedProcess:
        test = [str(t) for t in SERVICES[service]["healthcheck"]["test"]]
        kind, args = test[0], test[1:]
        if service == "web":
            args = [a.replace("127.0.0.1:8000", f"127.0.0.1:{self.web_port}") for a in args]
        if service == "redis":
            args = [a.replace("redis-cli", f"redis-cli -p {self.redis_port}") for a in args]
        args = [interpolate(a, self.dotenv) for a in args]
        if kind == "CMD-SHELL":
            argv = ["/bin/sh", "-c", " ".join(args)]
        else:
            assert kind == "CMD", test
            argv = args
        if (BIN / argv[0]).exists():
            argv[0] = str(BIN / argv[0])
        timeout = float(str(SERVICES[service]["healthcheck"].get("timeout", "30s")).rstrip("s"))
        return subprocess.run(
            argv, cwd=ROOT, env=self.env(service), capture_output=True, text=True, timeout=timeout + 10
        )


def wait_for(predicate, timeout: float, message: str, stack: Stack | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"{message} within {timeout}s\n{stack.log_tail() if stack else ''}")


# --- a browser behind the TLS proxy ------------------------------------------------------


class Reply:
    def __init__(self, status: int, headers: list[tuple[str, str]], body: bytes):
        self.status, self.headers, self.body = status, headers, body

    def header(self, name: str) -> str:
        return next((v for k, v in self.headers if k.lower() == name.lower()), "")

    def json(self):
        return json.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


class Browser:
    """Talks to gunicorn as the TLS-terminating proxy README asks for would: the public
    Host and X-Forwarded-Proto: https (production trusts it: SECURE_PROXY_SSL_HEADER).
    Keeps cookies itself (they are Secure, which a cookie jar would not send over http)."""

    def __init__(self, stack: Stack):
        self.stack = stack
        self.cookies: dict[str, str] = {}
        self.set_cookie_lines: list[str] = []

    def request(self, method: str, path: str, *, form=None, data=None, headers=None, timeout=30) -> Reply:
        conn = http.client.HTTPConnection("127.0.0.1", self.stack.web_port, timeout=timeout)
        hdrs = {"Host": self.stack.host, "X-Forwarded-Proto": "https"}
        if self.cookies:
            hdrs["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form).encode()
            hdrs["Content-Type"] = "application/x-www-form-urlencoded"
        elif data is not None:
            body = json.dumps(data).encode()
            hdrs["Content-Type"] = "application/json"
        if method != "GET":
            hdrs["Origin"] = self.stack.origin
            hdrs["Referer"] = f"{self.stack.origin}{path}"
            if "csrftoken" in self.cookies:
                hdrs["X-CSRFToken"] = self.cookies["csrftoken"]
        hdrs.update(headers or {})
        try:
            conn.request(method, path, body=body, headers=hdrs)
            resp = conn.getresponse()
            reply = Reply(resp.status, resp.getheaders(), resp.read())
        finally:
            conn.close()
        for key, value in reply.headers:
            if key.lower() == "set-cookie":
                self.set_cookie_lines.append(value)
                cookie = SimpleCookie()
                cookie.load(value)
                for name, morsel in cookie.items():
                    self.cookies[name] = morsel.value
        return reply

    def login(self, username: str, password: str) -> Reply:
        page = self.request("GET", "/accounts/login/")
        assert page.status == 200, (page.status, page.text[:500])
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        reply = self.request(
            "POST",
            "/accounts/login/",
            form={"username": username, "password": password, "csrfmiddlewaretoken": token},
        )
        assert reply.status == 302, (reply.status, reply.text[:1000])
        assert "sessionid" in self.cookies
        return reply

    def score_and_submit(self, code: str, changes: list) -> Reply:
        page = self.request("GET", f"/scoring/{code}/")
        assert page.status == 200, (page.status, page.text[:500])
        sheet = int(re.search(r'"sheet": (\d+)', page.text).group(1))  # as the page's script sends it
        saved = self.request(
            "POST",
            f"/scoring/{code}/save/",
            data={"sheet": sheet, "batch_id": uuid.uuid4().hex, "expected_version": 0, "changes": changes},
        )
        assert saved.status == 200, (saved.status, saved.text[:1000])
        assert saved.json()["missing"] == []
        return self.request(
            "POST",
            f"/scoring/{code}/submit/",
            data={"sheet": sheet, "expected_version": saved.json()["version"]},
        )


# --- the stack ----------------------------------------------------------------------------

SEED = """
import json
from django.contrib.auth import get_user_model
from django.core.management import call_command
from scoring.models import Assignment, RaterProfile
from scoring.services.assignments import group_assign_pair
from studies.models import Condition, Response, Study
from core.accounts.roles import RATER
from studies.response_files import records_from_data_a
from studies.services.responses import responses_import
from studies.services.roles import role_groups_ensure

call_command("createsuperuser", interactive=False)
call_command("setup_defaults")
call_command("import_responses", "studies/data/data_A.json", study="Smoke study", create_missing=True)
groups = role_groups_ensure()
raters = []
for username, code in (("rater1", "H01"), ("rater2", "H02")):
    user = get_user_model().objects.create_user(username=username, password="%(password)s")
    user.groups.set([groups[RATER]])
    RaterProfile.objects.update_or_create(user=user, defaults={"rater_code": code})
    raters.append(user)
study = Study.objects.get(name="Smoke study")
record = records_from_data_a(json.load(open("studies/data/data_A.json", encoding="utf-8")))[0]
record.research_id, record.condition = "B05_FS10", "B"   # the same texts under condition B
responses_import(records=[record], study=study)
a05 = Response.objects.get(study=study, research_id="A05_FS10")
group_assign_pair(
    study=study, scenario=a05.scenario, conditions=Condition.objects.filter(letter__in=["A", "B"]),
    rater_a=raters[0], rater_b=raters[1],
)
print(json.dumps({
    "study": study.pk,
    # each rater's own code of each response (their assignment's)
    "codes": {
        f"{a.response.research_id}/{a.rater.username}": a.blind_code
        for a in Assignment.objects.filter(response__study=study).select_related("response", "rater")
    },
}))
"""


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    if not Path("/usr/bin/redis-server").exists() and not any(
        (Path(p) / "redis-server").exists() for p in os.environ.get("PATH", "").split(os.pathsep)
    ):
        pytest.skip("redis-server is not installed")
    try:
        psycopg.connect(_pg_admin_url(), connect_timeout=3).close()
    except psycopg.OperationalError as exc:
        pytest.skip(f"no PostgreSQL server for the smoke test: {exc}")
    stack = Stack(tmp_path_factory.mktemp("smoke"))
    try:
        stack.redis_start()
        stack.database_create()
        # the one-shot migrate service must succeed before web and worker start
        stack.run("migrate", stack.command("migrate"), timeout=300)
        # web and worker start as soon as migrate has finished (compose's depends_on)
        stack.start("web", stack.command("web"), stack.env("web"))
        stack.start("worker", stack.command("worker"), stack.env("worker"))
        # meanwhile the README's first steps (one process: each Django start costs seconds):
        # createsuperuser, setup_defaults, import_responses, then raters and their pair
        seeded = stack.run(
            "web",
            [str(BIN / "python"), "manage.py", "shell", "-c", SEED % {"password": RATER_PASSWORD}],
            extra_env={
                "DJANGO_SUPERUSER_USERNAME": "admin",
                "DJANGO_SUPERUSER_PASSWORD": ADMIN_PASSWORD,
                "DJANGO_SUPERUSER_EMAIL": "admin@example.org",
            },
        )
        stack.seed = json.loads(seeded.stdout.strip().splitlines()[-1])
        wait_for(lambda: stack.healthcheck("web").returncode == 0, 60, "web never became healthy", stack)
        yield stack
    finally:
        for name in ("web", "worker", "redis"):
            stack.stop(name)
        with contextlib.suppress(Exception):
            stack.database_drop()


@pytest.fixture(scope="module")
def admin(stack) -> Browser:
    browser = Browser(stack)
    browser.login("admin", ADMIN_PASSWORD)
    return browser


def _changes(slot: int) -> list:
    data = json.loads((ROOT / "studies" / "data" / "data_A.json").read_text(encoding="utf-8"))
    return [list(c) for c in data_a_changes(data[0][3 + slot], load_rubric())] + TEXTS


def _agreement(stack: Stack, research_id: str):
    rows = stack.sql(
        "SELECT a.pcc FROM calibration_responseagreement a JOIN studies_response r ON r.id = a.response_id "
        "WHERE r.research_id = %s AND a.pcc IS NOT NULL",
        research_id,
    )
    return rows[0][0] if rows else None


# --- the checks ------------------------------------------------------------------------------


def test_health_checks_pass_exactly_as_compose_runs_them(stack):
    redis_check = stack.healthcheck("redis")
    assert redis_check.returncode == 0, redis_check.stdout + redis_check.stderr
    web = stack.healthcheck("web")
    assert web.returncode == 0, web.stdout + web.stderr
    worker = wait_for(
        lambda: (r := stack.healthcheck("worker")).returncode == 0 and r,
        45,
        "the worker's compose health check never passed",
        stack,
    )
    assert "pong" in worker.stdout
    # the liveness body reveals nothing, whatever the Host
    conn = http.client.HTTPConnection("127.0.0.1", stack.web_port, timeout=10)
    conn.request("GET", "/healthz", headers={"Host": "127.0.0.1"})
    reply = conn.getresponse()
    assert (reply.status, reply.read()) == (200, b"ok\n")
    conn.close()


def test_production_settings_redirect_http_and_set_secure_cookies(stack, admin):
    plain = http.client.HTTPConnection("127.0.0.1", stack.web_port, timeout=10)
    plain.request("GET", "/accounts/login/", headers={"Host": stack.host})
    reply = plain.getresponse()
    assert reply.status == 301 and reply.getheader("Location").startswith(f"https://{stack.host}/")
    plain.close()
    session = next(line for line in admin.set_cookie_lines if line.startswith("sessionid="))
    assert "Secure" in session and "HttpOnly" in session
    home = admin.request("GET", "/manage/")
    assert home.status == 200 and "Strict-Transport-Security" in dict(home.headers)


def test_status_is_ready_for_the_admin_and_refused_to_anonymous(stack, admin):
    anonymous = Browser(stack).request("GET", "/status/")
    assert anonymous.status == 404
    reply = wait_for(
        lambda: (r := admin.request("GET", "/status/")).status == 200 and r,
        30,
        "/status/ never said ready",
        stack,
    )
    body = reply.json()
    assert body["database"]["ok"] and body["broker"]["ok"] and body["workers"]["ok"]
    assert body["workers"]["workers"] == [f"celery@{stack.hostname}"]
    assert isinstance(body["queue"]["messages"], int)


def test_both_raters_score_and_submit_a_full_sheet_and_the_worker_computes_the_agreement(stack):
    for slot, username in enumerate(("rater1", "rater2")):
        code = stack.seed["codes"][f"A05_FS10/{username}"]
        rater = Browser(stack)
        rater.login(username, RATER_PASSWORD)
        assert code in rater.request("GET", "/scoring/").text  # in the rater's queue
        reply = rater.score_and_submit(code, _changes(slot))
        assert reply.status == 200, (reply.status, reply.text[:1000])
        assert isinstance(reply.json()["overall"], int | float)
    statuses = stack.sql(
        "SELECT s.status FROM scoring_scoresheet s JOIN scoring_assignment a ON a.id = s.assignment_id "
        "JOIN studies_response r ON r.id = a.response_id WHERE r.research_id = 'A05_FS10'"
    )
    assert sorted(statuses) == [("submitted",), ("submitted",)]
    pcc = wait_for(lambda: _agreement(stack, "A05_FS10"), 30, "no agreement computed", stack)
    assert round(pcc, 3) == 0.863


def test_an_export_is_built_by_the_worker_and_downloaded(stack, admin):
    started = admin.request(
        "POST", "/research/exports/", form={"kind": "results", "study": stack.seed["study"]}
    )
    assert started.status == 200, (started.status, started.text[:1000])
    job = int(re.search(r'id="export-job-(\d+)"', started.text).group(1))
    download = wait_for(
        lambda: (r := admin.request("GET", f"/research/exports/{job}/download")).status == 200 and r,
        60,
        "the export was never ready to download",
        stack,
    )
    assert "attachment" in download.header("Content-Disposition")
    assert download.body[:2] == b"PK"
    from openpyxl import load_workbook

    assert load_workbook(io.BytesIO(download.body), read_only=True).sheetnames


def test_while_the_broker_is_down_liveness_stays_green_and_status_says_why(stack, admin):
    stack.redis_kill()
    web = stack.healthcheck("web")
    assert web.returncode == 0, web.stdout + web.stderr
    status = admin.request("GET", "/status/")
    assert status.status == 503
    assert status.json()["broker"]["ok"] is False


# ===================================================================================================
# BROKER KILLED AND RESTARTED MID-SUBMIT: the transactional outbox keeps the agreement task
# of each submit in the database until the broker answers again.
# ===================================================================================================
def test_broker_killed_and_restarted_mid_submit(stack):
    codes = stack.seed["codes"]
    rater1, rater2 = Browser(stack), Browser(stack)
    try:
        rater1.login("rater1", RATER_PASSWORD)
        rater2.login("rater2", RATER_PASSWORD)
        stack.redis_kill()  # (already down after the previous test when run in order)
        first = rater1.score_and_submit(codes["B05_FS10/rater1"], _changes(0))
        second = rater2.score_and_submit(codes["B05_FS10/rater2"], _changes(1))
    finally:
        stack.redis_start()
    submitted = stack.sql(
        "SELECT count(*) FROM scoring_scoresheet s JOIN scoring_assignment a ON a.id = s.assignment_id "
        "JOIN studies_response r ON r.id = a.response_id "
        "WHERE r.research_id = 'B05_FS10' AND s.status = 'submitted'"
    )
    assert submitted == [(2,)]  # both sheets are stored whatever the broker did
    assert first.status == 200, (first.status, first.text[:500])
    assert second.status == 200, (second.status, second.text[:500])
    pcc = wait_for(lambda: _agreement(stack, "B05_FS10"), 30, "agreement never computed", stack)
    assert round(pcc, 3) == 0.863


def test_the_stack_is_ready_again_once_the_broker_is_back(stack, admin):
    if not stack.redis_ping():
        stack.redis_start()
    wait_for(
        lambda: admin.request("GET", "/status/").status == 200,
        45,
        "not ready after the broker restart",
        stack,
    )
    worker = stack.healthcheck("worker")
    assert worker.returncode == 0, worker.stdout + worker.stderr

"""The docker-compose services run on this machine without Docker, for the production smoke
test and the two-host test: each app service's own command with that service's environment
(the Dockerfile's ENV, then ``.env.example`` as the documented ``.env``, then the service's
``environment:``), with the hostnames ``postgres``/``redis`` pointed at this machine (a fresh
PostgreSQL database, a private ``redis-server`` on a free port), and a client that talks to
gunicorn as the TLS-terminating proxy would."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import uuid
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

import psycopg
import redis
import yaml

from tests.compose import EXAMPLES, dotenv, env_files, interpolate
from tests.workers import wait_for as poll_until

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
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


def pg_admin_url() -> str:
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
        self.admin_url = pg_admin_url()
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
    def env(self, service: str, services: dict | None = None) -> dict[str, str]:
        """``service``'s environment as compose gives it, from ``services`` (a compose file's;
        docker-compose.yml's unless given)."""
        services = services or SERVICES
        env = {
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
            "HOME": str(self.tmp),
            "LANG": "C.UTF-8",
            "HOSTNAME": self.hostname,
        }
        image = {k: v for k, v in dockerfile_env().items() if k not in ("PATH", "VIRTUAL_ENV")}
        env.update(image)
        for name in env_files(services[service]):  # as the documented copies of the examples
            env.update(self.dotenv if name == ".env" else dotenv(ROOT / EXAMPLES[name]))
        environment = services[service].get("environment") or {}
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

    def command(self, service: str, port: int | None = None, services: dict | None = None) -> list[str]:
        """The service's command as compose runs it (web: on ``port``, else ``web_port``)."""
        services = services or SERVICES
        cmd = [interpolate(str(c), self.dotenv) for c in services[service]["command"]]  # as compose does
        if (BIN / cmd[0]).exists():
            cmd[0] = str(BIN / cmd[0])
        if service == "web":  # the published port, on a free one here
            cmd = [re.sub(r"^0\.0\.0\.0:8000$", f"127.0.0.1:{port or self.web_port}", c) for c in cmd]
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
    """``tests.workers.wait_for``, failing with ``message`` and the end of the stack's logs."""
    try:
        return poll_until(predicate, timeout)
    except AssertionError:
        raise AssertionError(f"{message} within {timeout}s\n{stack.log_tail() if stack else ''}") from None


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

    def __init__(self, stack: Stack, port: int | None = None):
        self.stack = stack
        self.port = port or stack.web_port  # which web process (host) it talks to
        self.cookies: dict[str, str] = {}
        self.set_cookie_lines: list[str] = []

    def request(self, method: str, path: str, *, form=None, data=None, headers=None, timeout=30) -> Reply:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
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


# --- PgBouncer between the hosts and PostgreSQL ---------------------------------------------

PGBOUNCER = Path("/usr/sbin/pgbouncer")


def pgbouncer_config(directory: Path, port: int, admin_url: str, user: str) -> Path:
    """A PgBouncer in transaction pooling in front of the server of ``admin_url`` (every
    database, as ``user``: the server here trusts it). PgBouncer refuses to run as root: it drops to
    the ``postgres`` account, so its directory is readable by all."""
    server = urlsplit(admin_url)
    directory.mkdir(mode=0o755, parents=True, exist_ok=True)
    directory.chmod(0o755)
    config = directory / "pgbouncer.ini"
    config.write_text(
        "[databases]\n"
        f"* = host={server.hostname or '127.0.0.1'} port={server.port or 5432} user={user}\n"
        "[pgbouncer]\n"
        f"listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
        "auth_type = any\npool_mode = transaction\n"
        "max_client_conn = 400\ndefault_pool_size = 20\n"
        "ignore_startup_parameters = extra_float_digits,options\n"
    )
    config.chmod(0o644)
    return config


def via_pgbouncer(url: str, port: int) -> str:
    """``url`` with its host and port those of the PgBouncer on ``port``."""
    return _with_host(url, "127.0.0.1", port)

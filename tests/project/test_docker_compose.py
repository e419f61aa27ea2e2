"""docker-compose.yml cannot run here (no Docker engine); check that it refers to real things."""

import importlib
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
import yaml
from django.urls import resolve

from tests.brokers import free_port
from tests.compose import EXAMPLES, dotenv, env_files, interpolate
from tests.workers import child_env

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose():
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def _command(service):
    return service.get("command") or []


def test_docker_compose_has_the_four_services_with_healthchecks(compose):
    services = compose["services"]
    for name in ("postgres", "redis", "web", "worker"):
        assert name in services
        assert "healthcheck" in services[name], name
    assert {"pgdata", "redisdata", "appdata"} <= set(compose["volumes"])


def test_docker_compose_commands_refer_to_real_modules(compose):
    services = compose["services"]
    web = _command(services["web"])
    assert web[0] == "gunicorn"
    module, attr = web[1].split(":")
    # in a process of its own: importing the WSGI module starts a web process's background work
    # (its periodic job would go on in this test process, against the test databases, after them)
    check = (
        f"import importlib, sys; sys.exit(0 if hasattr(importlib.import_module({module!r}), {attr!r}) else 3)"
    )
    result = subprocess.run(
        [sys.executable, "-c", check], cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    worker = _command(services["worker"])
    assert worker[:3] == ["celery", "-A", "teamllm_web"]
    assert hasattr(importlib.import_module(worker[2]), "celery_app")
    assert _command(services["migrate"])[:2] == ["python", "manage.py"]
    assert (ROOT / "manage.py").exists()


def test_docker_compose_environment_points_at_real_settings(compose):
    env = compose["services"]["web"]["environment"]
    settings_module = env["DJANGO_SETTINGS_MODULE"]
    assert importlib.util.find_spec(settings_module) is not None
    assert env["DATABASE_URL"].startswith("postgres://") and "@postgres:" in env["DATABASE_URL"]
    assert env["REDIS_URL"].startswith("redis://") and "@redis:6379/" in env["REDIS_URL"]
    # every variable the compose file sets is documented for operators
    page = (ROOT / "docs" / "operators.md").read_text()
    for name in env:
        assert f"`{name}`" in page, name


def test_docker_compose_web_healthcheck_hits_healthz(compose):
    test = " ".join(compose["services"]["web"]["healthcheck"]["test"])
    path = re.search(r"http://127.0.0.1:8000(/\S+?)'", test).group(1)
    assert resolve(path).url_name == "healthz"


def test_dockerfile_uses_the_production_settings():
    text = (ROOT / "Dockerfile").read_text()
    assert "teamllm_web.settings.production" in text
    assert "python:3.11" in text


def test_compose_refuses_to_start_until_the_database_password_is_set(compose):
    documented = dotenv(ROOT / ".env.example")  # copied unchanged
    url = compose["services"]["web"]["environment"]["DATABASE_URL"]
    with pytest.raises(ValueError, match="set POSTGRES_PASSWORD in .env"):
        interpolate(url, documented)
    filled = interpolate(url, {**documented, "POSTGRES_PASSWORD": "s3cret"})
    assert filled == "postgres://teamllm:s3cret@postgres:5432/teamllm"


def test_the_redis_password_reaches_the_clients_and_the_health_check(compose):
    services = compose["services"]
    variables = {"REDIS_PASSWORD": "r3d1s", "POSTGRES_PASSWORD": "p"}
    for name in ("web", "worker", "migrate"):
        url = interpolate(services[name]["environment"]["REDIS_URL"], variables)
        assert url == "redis://:r3d1s@redis:6379/0", name
    assert interpolate(services["redis"]["environment"]["REDISCLI_AUTH"], variables) == "r3d1s"
    assert "grep -q PONG" in " ".join(services["redis"]["healthcheck"]["test"])
    # issue 37, finding 8: an empty password was accepted; compose now refuses to start
    for name in ("redis", "web", "worker"):
        with pytest.raises(ValueError, match="set REDIS_PASSWORD"):
            for value in services[name]["environment"].values():
                interpolate(str(value), {"POSTGRES_PASSWORD": "p"})


def redis_compose_argv(compose, variables, *overrides):
    """The compose Redis service's entrypoint and command, as compose interpolates them."""
    service = compose["services"]["redis"]
    argv = [interpolate(str(part), variables) for part in [*service["entrypoint"], *service["command"]]]
    env = {k: interpolate(str(v), variables) for k, v in service["environment"].items()}
    return [*argv, *overrides], env


def test_compose_redis_keeps_its_password_off_the_command_line_and_spares_the_queues(compose, tmp_path):
    """The compose Redis service, run as compose runs it: the password works but is on no
    command line any process of the host can read (issue 37, finding 8), and the memory
    ceiling evicts only keys with an expiry (the cache), never the broker's queues."""
    password = "r3d1sPassw0rd"
    port = free_port()
    overrides = ["--port", str(port), "--dir", str(tmp_path), "--appendonly", "no", "--bind", "127.0.0.1"]
    argv, env = redis_compose_argv(compose, {"REDIS_PASSWORD": password}, *overrides)
    assert password not in " ".join(argv)
    server = subprocess.Popen(argv, env={**env, "PATH": "/usr/bin:/bin"}, stdout=subprocess.DEVNULL)
    try:
        client = redis.Redis(port=port, password=password)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                assert server.poll() is None and time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.1)
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(port=port).ping()
        command_line = Path(f"/proc/{server.pid}/cmdline").read_bytes()
        assert b"redis-server" in command_line and password.encode() not in command_line
        config = client.config_get("maxmemory*")
        assert config["maxmemory-policy"] == "volatile-lru"
        assert int(config["maxmemory"]) == 512 * 1024 * 1024
    finally:
        server.kill()
        server.wait()


def test_compose_publishes_gunicorn_only_on_the_loopback(compose):
    """Reachable only through the host's reverse proxy (issue 22, finding 6): a client that
    reached gunicorn directly could send any X-Forwarded-For."""
    for service in compose["services"].values():
        for port in service.get("ports", []):
            assert str(port).startswith(("127.0.0.1:", "[::1]:")), port
    assert compose["services"]["web"]["ports"] == ["127.0.0.1:8000:8000"]
    documented = dotenv(ROOT / ".env.example")
    assert documented["TRUSTED_PROXY_COUNT"] == "1" and "127.0.0.1" in documented["TRUSTED_PROXIES"].split(
        ","
    )


def test_compose_bounds_connections_stops_gracefully_and_rotates_logs(compose):
    """Issue 37, finding 8: the shipped compose file as an operator runs it for a while."""
    from django.conf import settings

    services = compose["services"]
    # every service's log is rotated
    for name, service in services.items():
        options = service.get("logging", {}).get("options", {})
        assert service.get("logging", {}).get("driver") == "json-file" and options.get("max-size"), name
    # a worker's warm shutdown outlasts a provider call; gunicorn's graceful timeout fits in web's
    seconds = {name: int(str(services[name]["stop_grace_period"]).rstrip("s")) for name in ("web", "worker")}
    assert seconds["worker"] > settings.LLM_TIMEOUT_SECONDS and seconds["web"] > 30
    # the web processes write their metrics where /metrics reads them
    assert services["web"]["environment"]["PROMETHEUS_MULTIPROC_DIR"].startswith("/tmp/")
    # connections: web at its largest default (8 processes x 4 threads) and four workers at their
    # default concurrency stay under the database's limit, with room for migrate and psql
    limit = int(interpolate(" ".join(services["postgres"]["command"]), {}).split("max_connections=")[1])
    worker_threads = int(interpolate(" ".join(services["worker"]["command"]), {}).split("--concurrency=")[1])
    assert 8 * 4 + 4 * worker_threads + 10 <= limit
    for name in ("postgres", "redis", "web", "worker"):
        assert services[name]["restart"] == "unless-stopped", name


def test_gunicorn_sizes_itself_from_the_containers_cpu_quota(tmp_path, monkeypatch):
    """Inside a container os.cpu_count() is the host's (24 cores: 96 connections); the quota counts."""
    import importlib.util

    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    spec = importlib.util.spec_from_file_location("gunicorn_conf", ROOT / "gunicorn.conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    cpu_max = tmp_path / "cpu.max"
    cpu_max.write_text("150000 100000\n")  # docker run --cpus 1.5
    assert conf.cpus_available(str(cpu_max)) == min(2, len(os.sched_getaffinity(0)))
    cpu_max.write_text("max 100000\n")  # no quota: the affinity
    assert conf.cpus_available(str(cpu_max)) == len(os.sched_getaffinity(0))
    assert conf.cpus_available(str(tmp_path / "absent")) == len(os.sched_getaffinity(0))
    assert 2 <= conf.workers <= 8


def test_provider_keys_go_only_to_the_containers_that_call_providers(compose):
    """Issue 37, finding 8: the keys are not in every container. They live in providers.env,
    which compose gives to web (Test connection) and worker only; .env (the settings every app
    container needs) names none, and postgres and redis get no env file at all."""
    services = compose["services"]
    for name in (".env", "providers.env"):
        assert (ROOT / EXAMPLES[name]).is_file()
    providers = dotenv(ROOT / EXAMPLES["providers.env"])
    assert any(key.startswith("TEAMLLM_LLM_KEY_") for key in providers)
    assert not any(key.startswith("TEAMLLM_LLM_KEY_") for key in dotenv(ROOT / EXAMPLES[".env"]))
    assert {name: env_files(service) for name, service in services.items()} == {
        "postgres": [],
        "redis": [],
        "migrate": [".env"],
        "web": [".env", "providers.env"],
        "worker": [".env", "providers.env"],
    }
    # neither file goes into the image or into git
    for ignore in (".dockerignore", ".gitignore"):
        lines = (ROOT / ignore).read_text().splitlines()
        assert ".env" in lines and "providers.env" in lines, ignore

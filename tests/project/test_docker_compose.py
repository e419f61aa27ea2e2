"""docker-compose.yml cannot run here (no Docker engine); check that it refers to real things."""

import importlib
import re
import subprocess
import time
from pathlib import Path

import pytest
import redis
import yaml
from django.urls import resolve

from tests.brokers import free_port
from tests.compose import dotenv, interpolate

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
    assert hasattr(importlib.import_module(module), attr)
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


def test_the_redis_password_reaches_the_server_the_clients_and_the_health_check(compose):
    services = compose["services"]
    variables = {"REDIS_PASSWORD": "r3d1s"}
    assert (
        interpolate(services["web"]["environment"]["REDIS_URL"], variables) == "redis://:r3d1s@redis:6379/0"
    )
    command = [interpolate(a, variables) for a in services["redis"]["command"]]
    assert command[command.index("--requirepass") + 1] == "r3d1s"
    assert interpolate(services["redis"]["environment"]["REDISCLI_AUTH"], variables) == "r3d1s"
    assert "grep -q PONG" in " ".join(services["redis"]["healthcheck"]["test"])


def test_compose_redis_runs_with_a_ceiling_that_spares_the_queues(compose, tmp_path):
    """The compose Redis command, as compose interpolates it (no password set), starts a real
    redis-server whose memory ceiling evicts only keys with an expiry (the cache), never the
    broker's queues."""
    command = [interpolate(str(part), {}) for part in _command(compose["services"]["redis"])]
    assert command[0] == "redis-server"
    port = free_port()
    overrides = ["--port", str(port), "--dir", str(tmp_path), "--appendonly", "no"]
    server = subprocess.Popen([*command, *overrides], stdout=subprocess.DEVNULL)
    try:
        client = redis.Redis(port=port)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                assert server.poll() is None and time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.1)
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

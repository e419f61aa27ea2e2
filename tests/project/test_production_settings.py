import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _manage(*args, **env):
    # not the async guard's switch, set in this process while a browser test's Playwright is up
    dropped = ("SECRET_KEY", "DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE")
    full = {k: v for k, v in os.environ.items() if k not in dropped}
    full.update(DJANGO_SETTINGS_MODULE="teamllm_web.settings.production", **env)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=full, capture_output=True, text=True
    )


def test_production_settings_pass_check_deploy():
    result = _manage("check", "--deploy", "--fail-level", "WARNING", SECRET_KEY="x7" * 30 + "qpzmWNVB")
    assert result.returncode == 0, result.stdout + result.stderr


def test_production_settings_refuse_to_start_without_secret_key():
    result = _manage("check")
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_production_settings_refuse_debug():
    result = _manage("check", SECRET_KEY="x7" * 30 + "qpzmWNVB", DEBUG="1")
    assert result.returncode != 0
    assert "DEBUG" in result.stderr


def test_production_settings_refuse_a_placeholder_secret_key():
    # the key an earlier .env.example shipped, and the "django-insecure-" of startproject
    for placeholder in (
        "change-me-to-50-random-characters-change-me-to-50-random-chars",
        "django-insecure-" + "k3j4h5g6f7d8s9a0" * 3,
    ):
        result = _manage("check", SECRET_KEY=placeholder)
        assert result.returncode != 0 and "placeholder" in result.stderr, placeholder


def test_the_documented_env_file_leaves_the_secrets_to_fill_in():
    values = dict(
        line.split("=", 1)
        for line in (ROOT / ".env.example").read_text().splitlines()
        if line and line[0] != "#"
    )
    assert values["SECRET_KEY"] == "" and values["POSTGRES_PASSWORD"] == ""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _manage(*args, **env):
    full = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG")}
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

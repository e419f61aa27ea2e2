"""A management command run beside gunicorn (same container, same environment) keeps its
own metrics out of gunicorn's multiprocess directory: /metrics adds up web processes only
(issue 37, finding 7)."""

import subprocess
import sys
from pathlib import Path

from tests.workers import child_env

ROOT = Path(__file__).resolve().parents[2]
QUERY = "from django.db import connection\nconnection.cursor().execute('SELECT 1')\nprint('queried')"


def test_a_command_writes_no_metric_files_into_gunicorns_directory(tmp_path):
    env = child_env(PROMETHEUS_MULTIPROC_DIR=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", QUERY],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "queried" in result.stdout
    assert sorted(path.name for path in tmp_path.iterdir()) == []

"""A worker loads the statistics and spreadsheet libraries when it starts, before its pool forks
(``WORKER_LOADS_LIBRARIES``, on unless the suite turns it off): its first export does not pay their
import. Checked in fresh interpreters, as a worker's main process is one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.workers import child_env

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import json, sys, django
django.setup()
from celery.signals import worker_init
import research.tasks  # noqa: F401  (its receiver, as the worker imports it)
worker_init.send(sender=None)
print(json.dumps({name: name in sys.modules for name in ("pingouin", "pandas", "scipy.stats", "xlsxwriter")}))
"""


@pytest.mark.parametrize(
    ("settings_module", "setting", "loaded"),
    [
        ("teamllm_web.settings.local", None, True),  # make run's settings, as a deployment's: on
        ("teamllm_web.settings.test", None, False),  # the suite's: off
        ("teamllm_web.settings.test", "1", True),
    ],
)
def test_a_starting_worker_loads_the_libraries_unless_told_not_to(settings_module, setting, loaded):
    env = {**child_env(), "DJANGO_SETTINGS_MODULE": settings_module}
    env.pop("WORKER_LOADS_LIBRARIES", None)
    if setting is not None:
        env["WORKER_LOADS_LIBRARIES"] = setting
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    found = json.loads(result.stdout.strip().splitlines()[-1])
    assert found == dict.fromkeys(found, loaded)

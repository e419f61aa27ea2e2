"""What users read is what we meant: a Django template comment spans one line (``{# ... #}`` over
two lines is printed as text, as above Table 4 of the research page once was); a management
command prints its own output only (no "AXES: BEGIN version..." before it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)


def test_no_template_comment_spans_lines():
    spanning = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in ROOT.glob("**/templates/**/*.html")
        if ".venv" not in path.parts and "var" not in path.parts
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if "{#" in line and "#}" not in line.split("{#", 1)[1]
    ]
    assert spanning == []


def test_a_management_command_prints_no_login_guard_banner():
    done = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "System check identified no issues" in done.stdout
    assert "AXES" not in done.stdout + done.stderr

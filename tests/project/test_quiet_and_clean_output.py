"""What users read is what we meant: a Django template comment spans one line (``{# ... #}`` over
two lines is printed as text, as above Table 4 of the research page once was); a management
command prints its own output only (no "AXES: BEGIN version..." before it); a client's error is
one line in the log."""

from __future__ import annotations

import io
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from core.logs import ClientErrorsWithoutTraceback

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


@pytest.mark.django_db
def test_a_refused_request_is_one_line_in_the_log(client, django_user_model):
    """Hostile pass 14: every 403 was logged with the PermissionDenied traceback."""
    console = next(
        h
        for h in logging.getLogger().handlers
        if any(isinstance(f, ClientErrorsWithoutTraceback) for f in h.filters)
    )
    assert isinstance(console, logging.StreamHandler)
    client.force_login(django_user_model.objects.create_user("no-role-person"))
    captured = io.StringIO()
    previous = console.setStream(captured)
    try:
        assert client.get("/manage/flags/").status_code == 403
    finally:
        console.setStream(previous)
    logged = captured.getvalue()
    assert "Forbidden" in logged and "/manage/flags/" in logged
    assert "Traceback" not in logged and len(logged.strip().splitlines()) == 1


def test_a_server_error_keeps_its_traceback():
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        record = logging.LogRecord(
            "django.request", logging.ERROR, __file__, 1, "Internal Server Error", (), sys.exc_info()
        )
    record.status_code = 500
    assert ClientErrorsWithoutTraceback().filter(record) and record.exc_info is not None

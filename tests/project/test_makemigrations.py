"""Every model change has its migration (a deployment's `migrate` would otherwise miss it)."""

from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_models_and_migrations_agree():
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exc:  # --check exits 1 when a migration is missing
        pytest.fail(f"missing migrations (exit {exc.code}):\n{out.getvalue()}")
    assert "No changes detected" in out.getvalue()

"""python manage.py import_workbook FILE [--actor USERNAME]"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from scoring.services.workbooks import workbook_import


class Command(BaseCommand):
    help = (
        "Import a filled offline scoring workbook: every sheet is stored and submitted "
        "(audited as imported from workbook), or nothing is stored and every problem is listed."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the .xlsx workbook exported by the platform")
        parser.add_argument("--actor", help="username recorded in the audit trail (default: none)")

    def handle(self, *args, file: str, actor: str | None = None, **options):
        path = Path(file)
        if not path.is_file():
            raise CommandError(f"no such file: {file}")
        if path.stat().st_size > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
            raise CommandError(
                f"{file}: too large ({path.stat().st_size} bytes; limit {settings.DATA_UPLOAD_MAX_MEMORY_SIZE})"
            )
        user = None
        if actor:
            user = get_user_model().objects.filter(username=actor).first()
            if user is None:
                raise CommandError(f"no user named {actor!r}")
        result = workbook_import(data=path.read_bytes(), actor=user)
        if not result.ok:
            lines = "\n".join(f"  {p}" for p in result.problems)
            raise CommandError(f"{path.name}: nothing stored; {len(result.problems)} problem(s):\n{lines}")
        self.stdout.write(f"{path.name}: stored and submitted {len(result.stored)} sheet(s)")

"""python manage.py rubric_import FILE --study S --as ADMIN [--use]"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from studies.management.options import admin_named, file_bytes, problems_refused, study_from_option
from studies.rubric import RubricError
from studies.rubric.document import MAX_DOCUMENT_BYTES
from training.services.rubric_import import rubric_import, study_rubric_choose
from training.services.training_set import TrainingError


class Command(BaseCommand):
    help = (
        "Import a rubric file (JSON, YAML for .yaml/.yml, or an Excel scoring sheet; docs/rubric-format.md) as a rubric version of a "
        "study, as the study's rubric page does: every problem listed and nothing stored, or stored and "
        "audited under the admin named by --as. --use makes it the study's rubric (only before any sheet)."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="The rubric file.")
        parser.add_argument("--study", help="study name or id (default: the only study)")
        parser.add_argument("--as", dest="admin", required=True, help="the admin account acting")
        parser.add_argument("--use", action="store_true", help="make it the study's rubric")

    def handle(self, *args, path, study, admin, use, **options):
        chosen = study_from_option(study)
        actor = admin_named(admin)
        name, content = file_bytes(path, limit=MAX_DOCUMENT_BYTES)
        try:
            rubric = rubric_import(study=chosen, content=content, file_name=name, actor=actor)
        except RubricError as exc:
            raise problems_refused(self, exc.problems, f"{name} is not imported") from exc
        self.stdout.write(f"Rubric {rubric.version} is stored for {chosen.name}.")
        if use:
            try:
                study_rubric_choose(study=chosen, version=rubric.version, actor=actor)
            except TrainingError as exc:
                raise CommandError(exc.message) from exc
            self.stdout.write(self.style.SUCCESS(f"{chosen.name} now uses rubric {rubric.version}."))

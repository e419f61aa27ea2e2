from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from studies.management.options import study_from_option
from studies.scenario_files import ScenarioFileError, records_from_upload
from studies.services.scenarios import scenarios_import


class Command(BaseCommand):
    help = (
        'Import a study\'s scenarios from the released JSON ({"FS10": {"theme", "text"}}), '
        "JSON Lines or xlsx (columns code, theme, text, optional theme_zh, text_zh). All-or-nothing; "
        "identical re-imports change nothing; a scored scenario's text changes only with --force (audited)."
    )

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--study", required=True, help="Study name.")
        parser.add_argument(
            "--force",
            action="store_true",
            help="Replace texts of scenarios that already have scores (audited).",
        )

    def handle(self, *args, file, study, force, **options):
        study_obj = study_from_option(study)
        path = Path(file)
        try:
            content = path.read_bytes()
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror}") from exc
        try:
            records = records_from_upload(path.name, content)
            report = scenarios_import(study=study_obj, records=records, force=force, source_name=path.name)
        except ScenarioFileError as exc:
            lines = "\n".join(f"  - {p}" for p in exc.problems)
            raise CommandError(f"Nothing imported ({len(exc.problems)} problem(s)):\n{lines}") from exc
        self.stdout.write(self.style.SUCCESS(f"Study {study_obj.name}: {report.summary()}"))

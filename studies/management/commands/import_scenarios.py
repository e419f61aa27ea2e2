from pathlib import Path

from django.core.management.base import CommandParser

from studies.management.options import StudyFileCommand, study_from_option
from studies.scenario_files import ScenarioFileError, records_from_upload
from studies.services.scenarios import scenarios_import


class Command(StudyFileCommand):
    help = (
        'Import a study\'s scenarios from the released JSON ({"FS10": {"theme", "text"}}), '
        "JSON Lines or xlsx (columns code, theme, text, optional theme_zh, text_zh). All-or-nothing; "
        "identical re-imports change nothing; a scored scenario's text changes only with --force (audited)."
    )
    study_required = True

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--force",
            action="store_true",
            help="Replace texts of scenarios that already have scores (audited).",
        )

    def handle(self, *args, file, study, force, **options):
        study_obj = study_from_option(study)
        path = Path(file)
        content = self.file_bytes(path)
        try:
            records = records_from_upload(path.name, content)
            report = scenarios_import(study=study_obj, records=records, force=force, source_name=path.name)
        except ScenarioFileError as exc:
            raise self.problems_error("Nothing imported", exc.problems) from exc
        self.done(study_obj, report.summary())

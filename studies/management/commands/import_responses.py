from django.core.management.base import CommandError, CommandParser

from studies.management.options import StudyFileCommand, study_from_option
from studies.models import TaskKind
from studies.response_files import RecordError, RecordProblems, records_from_file
from studies.services.pairs import pairs_import_refused
from studies.services.responses import responses_import


class Command(StudyFileCommand):
    help = (
        "Import responses from a data_A.json-style file or a JSON Lines file "
        "(one object per line: research_id, scenario, model, condition, steps[6]; a single-text "
        "study's give text instead). All-or-nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--create-missing", action="store_true", help="Create unknown scenarios, models (and the study)."
        )

    def handle(self, *args, file, study, create_missing, **options):
        study_obj = study_from_option(study, create=create_missing)
        try:
            pairs_import_refused(study=study_obj)
            records = records_from_file(file, text_task=study_obj.task_kind == TaskKind.TEXT)
            report = responses_import(
                records=records,
                study=study_obj,
                create_missing=create_missing,
                source="import_responses command",
            )
        except RecordProblems as exc:
            raise self.problems_error("Nothing imported", exc.problems) from exc
        except RecordError as exc:
            raise CommandError(f"Nothing imported. {exc}") from exc
        self.warn(report.warnings)
        # each held response with why (no rater gets it until released on the held responses page)
        self.warn(f"held for review: {text}" for text in report.held_texts())
        self.done(study_obj, report.summary())

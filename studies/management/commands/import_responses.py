from django.core.management.base import BaseCommand, CommandError

from studies.management.options import study_from_option
from studies.response_files import RecordError, RecordProblems, records_from_file
from studies.services.responses import responses_import


class Command(BaseCommand):
    help = (
        "Import responses from a data_A.json-style file or a JSON Lines file "
        "(one object per line: research_id, scenario, model, condition, steps[6]). All-or-nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--study", help="Study name (default: the only study).")
        parser.add_argument(
            "--create-missing", action="store_true", help="Create unknown scenarios, models (and the study)."
        )

    def handle(self, *args, file, study, create_missing, **options):
        study_obj = study_from_option(study, create=create_missing)
        try:
            records = records_from_file(file)
            report = responses_import(records=records, study=study_obj, create_missing=create_missing)
        except RecordProblems as exc:
            lines = "\n".join(f"  - {p}" for p in exc.problems)
            raise CommandError(f"Nothing imported ({len(exc.problems)} problem(s)):\n{lines}") from exc
        except RecordError as exc:
            raise CommandError(f"Nothing imported. {exc}") from exc
        for warning in report.warnings:
            self.stderr.write(self.style.WARNING(f"Warning: {warning}"))
        if report.held:
            self.stderr.write(
                self.style.WARNING(
                    f"Held for review (parse warnings; no rater gets them until released on the "
                    f"held responses page): {', '.join(report.held)}"
                )
            )
        self.stdout.write(self.style.SUCCESS(f"Study {study_obj.name}: {report.summary()}"))

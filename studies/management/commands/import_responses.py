from django.core.management.base import BaseCommand, CommandError

from studies.models import Study
from studies.services.responses import RecordError, records_from_file, responses_import


def study_from_option(name: str | None, *, create: bool = False) -> Study:
    """The study named, or the only study there is."""
    if name:
        study = Study.objects.filter(name=name).first()
        if study is None:
            if not create:
                raise CommandError(
                    f"Unknown study {name!r}. Known: {', '.join(Study.objects.values_list('name', flat=True)) or 'none'}"
                )
            study = Study.objects.create(name=name)
        return study
    studies = list(Study.objects.all()[:2])
    if len(studies) == 1:
        return studies[0]
    if not studies:
        raise CommandError("No study exists yet: pass --study NAME --create-missing, or run seed_demo.")
    raise CommandError("Several studies exist: choose one with --study NAME.")


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
        except RecordError as exc:
            raise CommandError(f"Nothing imported. {exc}") from exc
        self.stdout.write(self.style.SUCCESS(f"Study {study_obj.name}: {report.summary()}"))

from django.core.management.base import BaseCommand

from studies.management.options import file_bytes, problems_refused
from studies.rubric import RubricError, parse_rubric
from studies.rubric.document import MAX_DOCUMENT_BYTES
from studies.rubric_sheet import rubric_file_read


class Command(BaseCommand):
    help = (
        "Check a rubric file (JSON, YAML for .yaml/.yml, or an Excel scoring sheet whose notes mark its "
        "score cells) against the rubric format "
        "(docs/rubric-format.md): every problem is listed; a valid rubric is summarised. Changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="The rubric file.")

    def handle(self, *args, path, **options):
        name, content = file_bytes(path, limit=MAX_DOCUMENT_BYTES)
        try:
            rubric = parse_rubric(rubric_file_read(content=content, file_name=name))
        except RubricError as exc:
            raise problems_refused(self, exc.problems, f"{name} is not a valid rubric") from exc
        self.stdout.write(
            self.style.SUCCESS(
                f"{name}: rubric {rubric.version} is valid ({', '.join(rubric.languages)}); "
                f"{len(rubric.steps)} steps, {len(rubric.dimensions)} dimensions, maximum {rubric.max_total}."
            )
        )
        for step in rubric.steps:
            items = f", {step.item_count} items" if step.has_items else ""
            self.stdout.write(
                f"  {step.number}. {step.name} ({step.kind}{items}): "
                f"{', '.join(d.short_key for d in step.dimensions)}; maximum {step.max}"
            )

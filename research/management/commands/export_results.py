"""python manage.py export_results OUT.xlsx [--study S] [--conditions A B]"""

from __future__ import annotations

from django.core.management.base import CommandError

from research.selectors.conditions import condition_names_get
from research.selectors.research import results_filter_problems, results_get
from research.workbook import results_workbook_write
from studies.management.options import StudyOutputCommand, study_from_option


class Command(StudyOutputCommand):
    help = (
        "Write the results workbook: Table 1 and 2 per condition, the overall table with Wilcoxon "
        "tests, Step-3 blanks, efficiency, diversity and the raw long table."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--conditions", nargs=2, metavar=("X", "Y"), help="pair tested (default: A B)")

    def handle(self, *args, out: str, study=None, conditions=None, **options):
        chosen = study_from_option(study)
        path = self.output(out)
        pair = (conditions[0].upper(), conditions[1].upper()) if conditions else None
        problems = results_filter_problems(study=chosen, pair=pair)
        if problems:
            raise CommandError("; ".join(problems))
        results = results_get(study=chosen, pair=pair)
        names = condition_names_get()
        results_workbook_write(results, path, condition_names=names)
        self.stdout.write(f"wrote {path} ({len(results.records)} final scores, study {chosen.name})")

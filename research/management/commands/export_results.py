"""python manage.py export_results OUT.xlsx [--study S] [--conditions A B]"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from research.selectors.research import results_filter_problems, results_get
from research.workbook import results_workbook_write
from studies.management.options import study_from_option
from studies.models import Condition


class Command(BaseCommand):
    help = (
        "Write the results workbook: Table 1 and 2 per condition, the overall table with Wilcoxon "
        "tests, Step-3 blanks, efficiency, diversity and the raw long table."
    )

    def add_arguments(self, parser):
        parser.add_argument("out", help="the .xlsx file to write")
        parser.add_argument("--study", help="study name or id (default: the only study)")
        parser.add_argument("--conditions", nargs=2, metavar=("X", "Y"), help="pair tested (default: A B)")

    def handle(self, *args, out: str, study=None, conditions=None, **options):
        chosen = study_from_option(study)
        path = Path(out)
        if path.suffix.lower() != ".xlsx":
            raise CommandError("the output file must end in .xlsx")
        pair = (conditions[0].upper(), conditions[1].upper()) if conditions else None
        problems = results_filter_problems(study=chosen, pair=pair)
        if problems:
            raise CommandError("; ".join(problems))
        results = results_get(study=chosen, pair=pair)
        names = dict(Condition.objects.values_list("letter", "name"))
        results_workbook_write(results, path, condition_names=names)
        self.stdout.write(f"wrote {path} ({len(results.records)} final scores, study {chosen.name})")

"""python manage.py export_results OUT.xlsx [--study S] [--conditions A B]
python manage.py export_results --release-workbooks DIR [--study S]"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import CommandError

from research.release_workbooks import release_workbooks_write
from research.selectors.conditions import condition_names_get
from research.selectors.release_sheets import release_sheets_get
from research.selectors.research import results_filter_problems, results_get
from research.workbook import results_workbook_write
from studies.management.options import StudyOutputCommand, study_from_option


class Command(StudyOutputCommand):
    help = (
        "Write the results workbook: Table 1 and 2 per condition, the overall table with Wilcoxon "
        "tests, Step-3 blanks, efficiency, diversity and the raw long table. With --release-workbooks "
        "DIR: every submitted sheet in the release's Excel layout instead, one <rater>_<scenario>.xlsx "
        "per rater and scenario, as the release's Extract_Scores.py reads them."
    )

    out_required = False  # or --release-workbooks DIR

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--conditions", nargs=2, metavar=("X", "Y"), help="pair tested (default: A B)")
        parser.add_argument(
            "--release-workbooks", metavar="DIR", help="write the sheets in the release's layout into DIR"
        )

    def handle(self, *args, out=None, study=None, conditions=None, release_workbooks=None, **options):
        chosen = study_from_option(study)
        if release_workbooks:
            if out:
                raise CommandError("give either OUT.xlsx or --release-workbooks DIR, not both")
            sheets = release_sheets_get(study=chosen)
            if not sheets:
                raise CommandError(f"study {chosen.name} has no submitted sheet")
            written = release_workbooks_write(sheets, Path(release_workbooks))
            self.stdout.write(
                f"wrote {len(written)} workbooks ({len(sheets)} sheets, study {chosen.name}) to {release_workbooks}"
            )
            return
        if not out:
            raise CommandError("give OUT.xlsx (the results workbook) or --release-workbooks DIR")
        path = self.output(out)
        pair = (conditions[0].upper(), conditions[1].upper()) if conditions else None
        problems = results_filter_problems(study=chosen, pair=pair)
        if problems:
            raise CommandError("; ".join(problems))
        results = results_get(study=chosen, pair=pair)
        names = condition_names_get()
        results_workbook_write(results, path, condition_names=names)
        self.stdout.write(f"wrote {path} ({len(results.records)} final scores, study {chosen.name})")

"""python manage.py diversity_backfill [--study S]"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from research.services.diversity import BackfillReport, responses_diversity_backfill
from studies.management.options import study_from_option


class Command(BaseCommand):
    help = (
        "Compute and store the diversity (Self-BLEU of Steps 1 and 3) of every response that has "
        "none yet or whose text changed since; the workers do it as responses arrive, this fills "
        "a database made before that. Idempotent: run it again and it computes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("--study", help="study name or id (default: every study)")

    def handle(self, *args, study=None, **options):
        study_id = study_from_option(study).pk if study else None

        def progress(report: BackfillReport) -> None:
            if options["verbosity"] > 1:
                self.stdout.write(f"  {report.computed} computed, {report.checked} checked")

        report = responses_diversity_backfill(study_id=study_id, progress=progress)
        self.stdout.write(
            f"{report.computed} response(s) computed, {report.checked - report.computed} already stored"
        )

"""What the score import commands share: the ``--rater`` option, and the outcome (warnings, the
recompute of the scenarios concerned, the summary)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from calibration.services.calibration import scenario_agreement_recompute
from studies.management.options import StudyFileCommand
from studies.models import Study


class ScoresImportCommand(StudyFileCommand):
    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--rater",
            action="append",
            default=[],
            metavar="CODE=USERNAME",
            help="Map a rater ID of the file to an existing user (repeatable). Unmapped IDs are "
            "matched by rater ID, or created as raters without a usable password.",
        )

    def finish(self, study: Study, report: Any) -> None:
        """Print the report's warnings, recompute agreement, routing and final scores of the
        scenarios the import touched, and print its summary."""
        self.warn(report.warnings)
        for scenario_id in sorted(report.scenario_ids):
            scenario_agreement_recompute(study_id=study.pk, scenario_id=scenario_id)
        self.done(study, report.summary())

from django.core.management.base import CommandError, CommandParser

from calibration.services.calibration import scenario_agreement_recompute
from scoring.services.score_import import ScoreImportError, scores_import_file
from studies.management.options import StudyFileCommand, study_from_option


def _rater_map(pairs: list[str]) -> dict[str, str]:
    mapping = {}
    for pair in pairs:
        code, sep, username = pair.partition("=")
        if not sep or not code.strip() or not username.strip():
            raise CommandError(f"--rater expects CODE=USERNAME, got {pair!r}")
        mapping[code.strip()] = username.strip()
    return mapping


class Command(StudyFileCommand):
    help = (
        "Import item-level scores in the study's data_A.json format as submitted primary sheets "
        "(all-or-nothing; the recomputed totals must match the file's summaries), then recompute "
        "agreement, calibration routing and final scores of the scenarios concerned."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--create-missing",
            action="store_true",
            help="Create responses (and their scenarios, models, the study) that do not exist yet.",
        )
        parser.add_argument(
            "--rater",
            action="append",
            default=[],
            metavar="CODE=USERNAME",
            help="Map a rater ID of the file to an existing user (repeatable). Unmapped IDs are "
            "matched by rater ID, or created as raters without a usable password.",
        )

    def handle(self, *args, file, study, create_missing, rater, **options):
        study_obj = study_from_option(study, create=create_missing)
        try:
            report = scores_import_file(
                path=file, study=study_obj, rater_map=_rater_map(rater), create_missing=create_missing
            )
        except ScoreImportError as exc:
            raise self.problems_error("Nothing imported", exc.problems) from exc
        self.warn(report.warnings)
        for scenario_id in sorted(report.scenario_ids):
            scenario_agreement_recompute(study_id=study_obj.pk, scenario_id=scenario_id)
        self.done(study_obj, report.summary())

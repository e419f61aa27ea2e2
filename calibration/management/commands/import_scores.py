from django.core.management.base import CommandParser

from calibration.management.scores_command import ScoresImportCommand
from scoring.services.score_import import ScoreImportError, scores_import_file
from studies.management.options import rater_map_from_option, study_from_option


class Command(ScoresImportCommand):
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

    def handle(self, *args, file, study, create_missing, rater, **options):
        study_obj = study_from_option(study, create=create_missing)
        try:
            report = scores_import_file(
                path=file,
                study=study_obj,
                rater_map=rater_map_from_option(rater),
                create_missing=create_missing,
            )
        except ScoreImportError as exc:
            raise self.problems_error("Nothing imported", exc.problems) from exc
        self.finish(study_obj, report)

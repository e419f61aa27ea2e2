from calibration.management.scores_command import ScoresImportCommand
from scoring.services.release_import import release_workbooks_import_path
from scoring.services.score_import import ScoreImportError
from studies.management.options import rater_map_from_option, study_from_option


class Command(ScoresImportCommand):
    help = (
        "Import a lab's scored sheets in the study's own Excel layout (a folder or .zip of "
        "<rater code>_<scenario>.xlsx workbooks, a worksheet per research ID, the scores in the "
        "release's cells) as submitted primary sheets of dimension scores, all or nothing, then "
        "recompute agreement, calibration routing and final scores of the scenarios concerned."
    )

    def handle(self, *args, file, study, rater, **options):
        study_obj = study_from_option(study)
        try:
            report = release_workbooks_import_path(
                path=file, study=study_obj, rater_map=rater_map_from_option(rater)
            )
        except ScoreImportError as exc:
            raise self.problems_error("Nothing imported", exc.problems) from exc
        self.finish(study_obj, report)

"""python manage.py export_workbooks OUT.zip [--study S]"""

from __future__ import annotations

from scoring.services.workbooks import workbooks_zip_write
from studies.management.options import StudyOutputCommand, study_from_option


class Command(StudyOutputCommand):
    help = (
        "Write every rater's open offline workbooks of a study into one zip, a folder per rater "
        "(the files the rater and the admin download on the workbooks pages)."
    )

    suffix = ".zip"

    def handle(self, *args, out: str, study=None, **options):
        chosen = study_from_option(study)
        path = self.output(out)
        written = workbooks_zip_write(study=chosen, path=path)
        self.stdout.write(f"wrote {path}: {written} workbook(s) of {chosen.name}")

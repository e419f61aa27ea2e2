"""Submitting sheets runs the downstream task in a real Celery worker process."""

import pytest

from calibration.models import FinalScore
from scoring.models import Assignment
from scoring.score_files import data_a_changes
from scoring.services.sheets import sheet_fill_and_submit
from studies.models import Response
from studies.rubric import load_rubric
from tests.workers import wait_for

pytestmark = pytest.mark.worker


def test_two_submitted_sheets_give_a_final_score_in_the_worker(celery_worker, demo, data_a):
    response = Response.objects.get(research_id="A05_FS10")
    rubric = load_rubric()
    for index, username in ((3, "rater1"), (4, "rater2")):  # the demo pair, H01 and H02
        assignment = Assignment.objects.get(rater__username=username, response=response)
        sheet_fill_and_submit(
            assignment=assignment,
            actor=assignment.rater,
            changes=data_a_changes(data_a[0][index], rubric),
            source="import",
            note="test",
            require_texts=False,
        )
    wait_for(lambda: FinalScore.objects.filter(response=response).exists(), worker=celery_worker)
    final = FinalScore.objects.get(response=response)
    assert str(final.overall) == "116.50"  # mean of 116 and 117, halves kept
    assert final.sheets.count() == 2
    response.refresh_from_db()
    assert response.status == "final"

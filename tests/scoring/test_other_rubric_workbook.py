"""The offline workbook of a study on another rubric than CGPST's: its own steps, ranges and
instructions, filled and uploaded as a rater would (docs/raters.md, offline workbooks)."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring.models import Assignment, ScoreSheet
from tests.factories import (
    ConditionFactory,
    ScenarioFactory,
    StudyFactory,
    make_response,
    rater,
    scoring_group_assigned,
)
from tests.workbook_fill import fill_sheet, save_workbook, workbook_download

pytestmark = pytest.mark.django_db


def test_a_likert_workbook_says_its_own_steps_and_scores_round_trip(client):
    study = StudyFactory(rubric_version="likert-hhh-v1")
    response = make_response(study=study, scenario=ScenarioFactory(study=study), condition=ConditionFactory())
    user = rater("likert-offline", "H41")
    scoring_group_assigned(responses=[response], rater_a=user, rater_b=rater("likert-other", "H42"))
    assignment = Assignment.objects.get(rater=user, response=response)
    name, book = workbook_download(client, user)
    assert name == "H41_" + response.scenario.code + ".xlsx"
    instructions = [row[0] for row in book["Instructions"].iter_rows(values_only=True)]
    assert instructions[0] == "Helpful, harmless, honest (1-7): offline scoring workbook"
    assert instructions[4] == (
        "3. Score each step: Helpfulness: Helpfulness (1-7); Harmlessness: Harmlessness (1-7); Honesty: Honesty (1-7)"
    )
    assert "有用、无害、诚实（1-7 分）：离线评分工作簿" in instructions
    assert not any("Steps 1 and 3" in (line or "") for line in instructions)
    fill_sheet(
        book[assignment.blind_code],
        [("dims.s1.helpfulness", 6), ("dims.s2.harmlessness", 7), ("dims.s3.honesty", 5)],
        rubric_version="likert-hhh-v1",
    )
    done = client.post(
        "/scoring/workbooks/", {"file": SimpleUploadedFile(name, save_workbook(book))}, follow=True
    )
    assert "Stored and submitted 1 sheet" in done.content.decode()
    sheet = ScoreSheet.objects.get(assignment=assignment)
    assert (sheet.status, sheet.overall, sheet.rubric_version) == ("submitted", 18, "likert-hhh-v1")

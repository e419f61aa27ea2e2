"""A study scored on a rubric other than CGPST's: the research output works from the rubric,
and what reads CGPST's own steps is left out and says so (docs/admins.md, A rubric of your own)."""

import io

import openpyxl
import pytest
from django.test import Client

from calibration.selectors.consistency import consistency_table
from research.models import KIND_RELEASE_WORKBOOKS, KIND_RESULTS
from research.services.exports import ExportParamsError, export_job_create, export_job_run
from scoring.score_plan import ScoreImportError
from scoring.services.release_import import release_workbooks_import
from scoring.services.score_import import scores_import
from studies.services.roles import role_groups_ensure
from tests.factories import (
    ConditionFactory,
    ScenarioFactory,
    StudyFactory,
    UserFactory,
    make_response,
    rater,
    scoring_group_assigned,
    sheet_submitted,
)

pytestmark = pytest.mark.django_db


def submitted(user, response, values):
    """A Likert sheet (no copied texts) scored and submitted through the services."""
    return sheet_submitted(
        user, response, [(f"dims.{key}", value) for key, value in values.items()], texts=[]
    )


@pytest.fixture
def likert():
    study = StudyFactory(rubric_version="likert-hhh-v1")
    scenario, condition = ScenarioFactory(study=study), ConditionFactory()
    responses = [make_response(study=study, scenario=scenario, condition=condition) for _ in range(3)]
    a, b = rater("la", "H31"), rater("lb", "H32")
    scoring_group_assigned(responses=responses, rater_a=a, rater_b=b)
    for i, response in enumerate(responses):
        submitted(a, response, {"s1.helpfulness": 2 + i, "s2.harmlessness": 6, "s3.honesty": 7 - i})
        submitted(b, response, {"s1.helpfulness": 3 + i, "s2.harmlessness": 5, "s3.honesty": 6 - i})
    researcher = UserFactory(username="likert-researcher", role="Researcher")
    researcher.groups.add(role_groups_ensure()["Admin"])
    return study, researcher


def test_the_research_page_shows_the_rubrics_tables_and_says_what_it_leaves_out(likert):
    study, researcher = likert
    client = Client()
    client.force_login(researcher)
    page = client.get(f"/research/?study={study.pk}").content.decode()
    assert 'id="cgpst-only"' in page and "This study's rubric has another shape" in page
    assert 'id="table5"' not in page and 'id="diversity"' not in page
    assert 'value="release_workbooks"' not in page
    assert "figures/diversity_flexibility." not in page and "figures/steps.svg" in page
    assert (
        '<option value="3">3</option>' in page and '<option value="4">4</option>' not in page
    )  # its 3 steps
    figure = f"/research/figures/{{}}.svg?study={study.pk}"
    assert client.get(figure.format("steps")).status_code == 200
    assert client.get(figure.format("dimensions") + "&step=3").status_code == 200
    for name in ("efficiency", "diversity", "diversity_flexibility", "diversity_flexibility_models"):
        assert client.get(figure.format(name)).status_code == 404


def test_the_api_serves_the_rubrics_tables_only(likert):
    study, researcher = likert
    client = Client()
    client.force_login(researcher)
    assert client.get(f"/api/v1/studies/{study.pk}/tables/table1").status_code == 200
    for name in ("blanks", "blank_disagreements", "efficiency", "diversity"):
        reply = client.get(f"/api/v1/studies/{study.pk}/tables/{name}")
        assert reply.status_code == 404 and "CGPST rubric only" in reply.json()["detail"]


def test_table_6_has_no_release_script_row_and_the_workbook_no_cgpst_sheets(likert):
    study, researcher = likert
    rows = consistency_table(study=study)["rows"]
    assert [row["pcc_label"] for row in rows if row["metric"] == "PCC"] == ["the sheet's maxima, headline"]
    job = export_job_run(
        job_id=export_job_create(kind=KIND_RESULTS, params={"study_id": study.pk}, user=researcher).pk
    )
    book = openpyxl.load_workbook(io.BytesIO(job.file.read()))
    assert book["About"]["A1"].value == "Results (Helpful, harmless, honest (1-7))"
    assert {"Blanks (Table 5)", "Efficiency", "Diversity"}.isdisjoint(book.sheetnames)
    assert {"Consistency (Table 6)", "PCC per response", "Raw scores"} <= set(book.sheetnames)
    raw = [row for row in book["Raw scores"].iter_rows(min_row=2, values_only=True)]
    assert {row[8] for row in raw} == {"s1.helpfulness", "s2.harmlessness", "s3.honesty"} and len(raw) == 18


def test_the_release_layout_and_data_a_files_are_refused_with_the_reason(likert):
    study, researcher = likert
    with pytest.raises(ExportParamsError, match="this study uses another rubric"):
        export_job_create(kind=KIND_RELEASE_WORKBOOKS, params={"study_id": study.pk}, user=researcher)
    with pytest.raises(ScoreImportError, match="this study uses another rubric"):
        release_workbooks_import(files=[("x.xlsx", b"")], study=study, source_name="x.xlsx")
    with pytest.raises(ScoreImportError, match="this study uses another rubric"):
        scores_import(data=[], study=study, source_name="data_A.json")

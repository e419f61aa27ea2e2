"""A single-text study's response (one prompt, one text) is shown as that one text wherever a
rater reads it: once on the scoring page, beside the rubric's steps (whose numbers name no
part of the response), for a primary rater and a calibrator alike; once on the rubric's
preview; once on each sheet of the offline workbook, which still round-trips."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring.models import Assignment, ScoreSheet
from tests.factories import (
    SINGLE_TEXT,
    ModelEndpointFactory,
    ScenarioFactory,
    StudyFactory,
    UserFactory,
    assign,
    code_for,
    make_response,
    rater,
    scoring_group_assigned,
    text_response,
)
from tests.workbook_fill import fill_sheet, save_workbook, workbook_download

pytestmark = pytest.mark.django_db

FIRST_LINE = SINGLE_TEXT.split("\n")[0]
LIKERT = [("dims.s1.helpfulness", 6), ("dims.s2.harmlessness", 7), ("dims.s3.honesty", 5)]


@pytest.fixture
def assigned():
    """A text response given to a rater pair; its model's name is one no page may show."""
    response = text_response(model=ModelEndpointFactory(name="hidden-endpoint", model_number="47"))
    first, second = rater("text-a", "H51"), rater("text-b", "H52")
    scoring_group_assigned(responses=[response], rater_a=first, rater_b=second)
    return response, first


def _panel(page: str) -> str:
    """The one response panel of a page (the whole_text partial)."""
    match = re.search(r'<section class="card whole-answer" id="response-text">(.*?)</section>', page, re.S)
    assert match, "no response panel"
    return match.group(1)


def _assert_one_text(page: str, response) -> None:
    assert page.count(FIRST_LINE) == 1 and SINGLE_TEXT in _panel(page)
    assert "How can I fall asleep faster?" in page  # the prompt, as the scenario
    # the rubric's three steps, each a score card without a response of its own
    assert re.findall(r'<section id="(step-\d)" class="card step"', page) == ["step-1", "step-2", "step-3"]
    assert page.count("step-grid-alone") == 3
    assert "Response to Step" not in page and "The whole response to Step" not in page
    assert '<aside class="answer"' not in page
    # the blind: nothing names what produced the text
    for secret in (response.research_id, "hidden-endpoint", "Single model", response.blind_code):
        assert secret not in page


def test_the_sheet_shows_the_one_text_once_beside_the_rubrics_steps(client, assigned):
    response, first = assigned
    client.force_login(first)
    page = client.get(f"/scoring/{code_for(first, response)}/").content.decode()
    _assert_one_text(page, response)
    assert "Helpfulness" in page and "Honesty" in page


def test_a_calibrator_reads_the_one_text_too(client, assigned):
    response, _first = assigned
    calibrator = rater("text-cal", "H53", can_calibrate=True)
    assign(calibrator, response, role="calibration")
    client.force_login(calibrator)
    page = client.get(f"/scoring/{code_for(calibrator, response, role='calibration')}/").content.decode()
    _assert_one_text(page, response)


def test_a_cgpst_response_on_the_same_rubric_keeps_a_text_per_step(client):
    """The other kind: the same Likert rubric on a six-step response shows each step its step."""
    study = StudyFactory(rubric_version="likert-hhh-v1")
    response = make_response(study=study, scenario=ScenarioFactory(study=study))
    first = rater("cgpst-a", "H54")
    scoring_group_assigned(responses=[response], rater_a=first, rater_b=rater("cgpst-b", "H55"))
    client.force_login(first)
    page = client.get(f"/scoring/{code_for(first, response)}/").content.decode()
    assert 'id="response-text"' not in page and "step-grid-alone" not in page
    assert [f"Response to Step {n}" in page for n in (1, 2, 3)] == [True, True, True]


def test_the_rubric_preview_of_a_text_study_shows_one_text(client):
    client.force_login(UserFactory(username="boss", role="Admin"))
    text = text_response().study
    cgpst = StudyFactory(name="Six steps", rubric_version="likert-hhh-v1")
    url = "/manage/training/rubric/preview/?study={}&version=likert-hhh-v1"
    page = client.get(url.format(text.pk)).content.decode()
    assert "The response&#x27;s text appears here." in _panel(page)
    assert page.count("step-grid-alone") == 3 and "Response to Step" not in page
    other = client.get(url.format(cgpst.pk)).content.decode()
    assert 'id="response-text"' not in other and "Response to Step 3" in other


def test_the_offline_workbook_shows_the_one_text_once_and_round_trips(client, assigned):
    response, first = assigned
    code = Assignment.objects.get(rater=first, response=response).blind_code
    name, book = workbook_download(client, first)
    ws = book[code]
    cells = {c.coordinate: c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str)}
    assert [coord for coord, value in cells.items() if FIRST_LINE in value] == ["B5"]
    assert cells["B5"] == SINGLE_TEXT and cells["A5"] == "Response\n回答原文"
    assert list(cells.values()).count("Response\n回答原文") == 1  # no row of a step's response
    assert cells["A7"] == "Helpfulness\n有用性"  # the rubric's steps follow, each without the text
    for secret in (response.research_id, "hidden-endpoint", "Single model"):
        assert not any(secret in value for value in cells.values())
    meta = dict(book["Meta"].iter_rows(max_col=2, values_only=True))
    assert meta["task"] == "text"
    fill_sheet(ws, LIKERT, rubric_version="likert-hhh-v1", task="text")
    done = client.post(
        "/scoring/workbooks/", {"file": SimpleUploadedFile(name, save_workbook(book))}, follow=True
    )
    assert "Stored and submitted 1 sheet" in done.content.decode()
    sheet = ScoreSheet.objects.get(assignment__rater=first, assignment__response=response)
    assert (sheet.status, sheet.overall) == ("submitted", 18)


def test_a_text_workbook_without_its_task_row_is_refused(client, assigned):
    """The layout follows the Meta sheet's task row, which the signature covers: a workbook
    that drops it (to be read with the six-step layout) is refused whole."""
    response, first = assigned
    code = Assignment.objects.get(rater=first, response=response).blind_code
    name, book = workbook_download(client, first)
    fill_sheet(book[code], LIKERT, rubric_version="likert-hhh-v1", task="text")
    meta = book["Meta"]
    row = next(r for r in meta.iter_rows(max_col=1) if r[0].value == "task")
    row[0].value = None
    done = client.post(
        "/scoring/workbooks/", {"file": SimpleUploadedFile(name, save_workbook(book))}, follow=True
    )
    assert "signature does not match" in done.content.decode()
    assert not ScoreSheet.objects.filter(assignment__rater=first, status="submitted").exists()

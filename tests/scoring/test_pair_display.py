"""A pairwise study's unit is read as text A and text B wherever a rater reads it: on the scoring
page, side by side with the preference (never a step's panel, never a system's name), on the
rubric's preview, and on each sheet of the offline workbook, which round-trips."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring.models import Assignment, ScoreSheet
from scoring.workbooks.layout import sheet_layout
from studies.models import Response
from studies.services.pairs import pairs_build
from studies.services.studies import study_create
from tests.factories import (
    ModelEndpointFactory,
    UserFactory,
    code_for,
    rater,
    scoring_group_assigned,
    text_response,
    text_study,
)
from tests.workbook_fill import fill_sheet, save_workbook, workbook_download

pytestmark = pytest.mark.django_db

TEXT_A, TEXT_B = "Keep the room dark and cool.", "Count sheep until morning."


@pytest.fixture
def unit():
    source = text_study("Sleep answers")
    for number, text in (("61", TEXT_A), ("62", TEXT_B)):
        text_response(
            study=source, text=text, model=ModelEndpointFactory(model_number=number, name=f"secret-{number}")
        )
    study = study_create(name="Sleep preferences", template="empty", task_kind="pair", pairs_from=source)
    pairs_build(study=study, actor=None)
    pair = Response.objects.select_related("pair__left", "pair__right").get(study=study)
    first, second = rater("pair-a", "H61"), rater("pair-b", "H62")
    scoring_group_assigned(responses=[pair], rater_a=first, rater_b=second)
    return pair, first


def test_the_sheet_shows_text_a_and_text_b_once_and_no_system(client, unit):
    pair, first = unit
    client.force_login(first)
    page = client.get(f"/scoring/{code_for(first, pair)}/").content.decode()
    a, b = pair.pair.left.step1, pair.pair.right.step1
    assert page.count(a) == 1 and page.count(b) == 1 and page.index(a) < page.index(b)
    assert "<h2>Text A</h2>" in page and "<h2>Text B</h2>" in page and "whole-texts-pair" in page
    assert "Response to Step" not in page and "Which text is better" in page
    for secret in (pair.research_id, "secret-61", "secret-62", "Single model"):
        assert secret not in page


def test_the_preview_of_a_pairwise_study_shows_two_sample_texts(client, unit):
    pair, _ = unit
    client.force_login(UserFactory(username="boss", role="Admin"))
    page = client.get(
        f"/manage/training/rubric/preview/?study={pair.study_id}&version=pairwise-preference-v1"
    )
    body = page.content.decode()
    assert page.status_code == 200 and "Text A appears here." in body and "Text B appears here." in body


def test_the_offline_workbook_shows_both_texts_and_round_trips(client, unit):
    pair, first = unit
    code = Assignment.objects.get(rater=first, response=pair).blind_code
    name, book = workbook_download(client, first)
    ws = book[code]
    cells = {c.coordinate: c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str)}
    assert (cells["A5"], cells["B5"]) == ("Text A\n文本 A", pair.pair.left.step1)
    assert (cells["A6"], cells["B6"]) == ("Text B\n文本 B", pair.pair.right.step1)
    assert dict(book["Meta"].iter_rows(max_col=2, values_only=True))["task"] == "pair"
    fill_sheet(ws, [("dims.s1.preference", 2)], rubric_version="pairwise-preference-v1", task="pair")
    refused = client.post("/scoring/workbooks/", {"file": SimpleUploadedFile(name, save_workbook(book))})
    reason_cell = sheet_layout("pairwise-preference-v1", "en", task="pair").input_by_path["comments.1"].coord
    assert refused.status_code == 400  # A preferred: the reason's cell must be filled
    assert (
        f"<td>{reason_cell}</td>" in refused.content.decode() and "needs a value" in refused.content.decode()
    )
    assert not ScoreSheet.objects.filter(assignment__rater=first, status="submitted").exists()
    fill_sheet(ws, [("comments.1", "A is concrete.")], rubric_version="pairwise-preference-v1", task="pair")
    done = client.post(
        "/scoring/workbooks/", {"file": SimpleUploadedFile(name, save_workbook(book))}, follow=True
    )
    assert "Stored and submitted 1 sheet" in done.content.decode()
    sheet = ScoreSheet.objects.get(assignment__rater=first, assignment__response=pair)
    assert (sheet.status, sheet.overall) == ("submitted", 2)


def test_the_sheet_of_a_pair_names_its_prompt_a_prompt(client, unit):
    pair, first = unit
    client.force_login(first)
    page = client.get(f"/scoring/{code_for(first, pair)}/").content.decode()
    assert f"Prompt: {pair.scenario.theme}" in page and "Scenario:" not in page


def test_the_preference_levels_are_shown_without_a_click(client, unit):
    """One score per step (a preference, a Likert item): its anchors are read while scoring."""
    pair, first = unit
    client.force_login(first)
    page = client.get(f"/scoring/{code_for(first, pair)}/").content.decode()
    levels = page[page.index('data-path="dims.s1.preference"') :]
    shown = levels.split('<details class="levels" open>', 1)[1].split("</details>", 1)[0]
    assert "Text A is much better." in shown and "Text B is much better." in shown

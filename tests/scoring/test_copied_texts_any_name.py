"""A rubric's copied texts of its own names (not CGPST's four): accepted by the format, entered and
kept as every entry is (autosave, submit, the offline workbook both ways, read back by the page),
and counted missing until copied."""

from __future__ import annotations

import copy
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from scoring.models import Assignment, ScoreSheet
from scoring.selectors import sheet_entries_get
from scoring.services.sheets import SheetIncomplete, sheet_apply_changes, sheet_open
from studies.rubric import RubricError
from studies.rubric.loader import parse_rubric, rubric_data
from tests.factories import (
    code_for,
    rater,
    scoring_group_assigned,
    sheet_submitted,
    text_response,
    text_study,
)
from tests.workbook_fill import fill_sheet, save_workbook, workbook_download
from training.services.rubric_import import rubric_import, study_rubric_choose

QUOTE = {
    "key": "best_line",
    "label": {"en": "Best line", "zh": "最佳语句"},
    "help": {"en": "Copy the response's most helpful sentence.", "zh": "抄下回答中最有帮助的一句。"},
}
LIKERT = [("dims.s1.helpfulness", 6), ("dims.s2.harmlessness", 7), ("dims.s3.honesty", 5)]


def with_quote(version: str = "likert-quote-v1") -> dict:
    data = copy.deepcopy(rubric_data("likert-hhh-v1"))
    data["version"] = version
    data["steps"][0]["texts"] = [QUOTE]
    return data


def test_the_format_takes_a_text_of_any_name_once():
    assert [t.key for t in parse_rubric(with_quote()).steps[0].texts] == ["best_line"]
    twice = with_quote()
    twice["steps"][1]["texts"] = [QUOTE]
    twice["steps"][2]["shows_step2_texts"] = ["nowhere"]
    with pytest.raises(RubricError) as refused:
        parse_rubric(twice)
    assert "copied text key 'best_line' is used more than once" in refused.value.problems
    assert any("shows_step2_texts names 'nowhere'" in p for p in refused.value.problems)
    bad = with_quote()
    bad["steps"][0]["texts"] = [{**QUOTE, "key": "Best Line"}]
    with pytest.raises(RubricError) as schema:
        parse_rubric(bad)
    assert any("text Best Line" in p for p in schema.value.problems)


@pytest.fixture
def quoted(db):
    study = text_study("Quoted answers")
    rubric_import(study=study, content=json.dumps(with_quote()).encode(), file_name="q.json", actor=None)
    study_rubric_choose(study=study, version="likert-quote-v1", actor=None)
    response = text_response(study=study, text="Keep the room dark. A cool room helps most.")
    first, second = rater("quote-a", "H71"), rater("quote-b", "H72")
    scoring_group_assigned(responses=[response], rater_a=first, rater_b=second)
    return response, first, second


def test_a_copied_text_of_its_own_name_is_kept_and_read_back(client, quoted):
    response, first, _second = quoted
    assignment = Assignment.objects.get(rater=first, response=response)
    sheet = sheet_open(assignment=assignment, actor=first)
    sheet_apply_changes(
        sheet_id=sheet.pk,
        actor=first,
        changes=[*LIKERT, ("texts.best_line", "A cool room helps most.")],
        expected_version=sheet.version,
    )
    saved = ScoreSheet.objects.get(pk=sheet.pk)
    assert saved.other_texts == {"best_line": "A cool room helps most."}
    assert sheet_entries_get(sheet=saved).texts["best_line"] == "A cool room helps most."
    client.force_login(first)
    page = client.get(f"/scoring/{code_for(first, response)}/").content.decode()
    assert 'data-path="texts.best_line"' in page and ">A cool room helps most.</textarea>" in page
    assert "Best line" in page and "Copy the response&#x27;s most helpful sentence." in page


def test_it_is_missing_until_copied_and_submitted_with_the_sheet(quoted):
    response, first, _second = quoted
    with pytest.raises(SheetIncomplete) as incomplete:
        sheet_submitted(first, response, LIKERT, texts=[])
    assert [m.path for m in incomplete.value.missing] == ["texts.best_line"]
    sheet = sheet_submitted(first, response, LIKERT, texts=[("texts.best_line", "A cool room helps most.")])
    assert sheet.status == "submitted" and sheet.other_texts["best_line"] == "A cool room helps most."


def test_the_offline_workbook_carries_it_both_ways(client, quoted):
    response, _first, second = quoted
    code = Assignment.objects.get(rater=second, response=response).blind_code
    name, book = workbook_download(client, second)
    labels = [c.value for row in book[code].iter_rows() for c in row if isinstance(c.value, str)]
    assert any(value.startswith("Best line") for value in labels)
    fill_sheet(
        book[code],
        [*LIKERT, ("texts.best_line", "Keep the room dark.")],
        rubric_version="likert-quote-v1",
        task="text",
    )
    done = client.post(
        "/scoring/workbooks/", {"file": SimpleUploadedFile(name, save_workbook(book))}, follow=True
    )
    assert "Stored and submitted 1 sheet" in done.content.decode()
    sheet = ScoreSheet.objects.get(assignment__rater=second, assignment__response=response)
    assert sheet.status == "submitted" and sheet.copied_text("best_line") == "Keep the room dark."

"""A rubric's text checks (``checks`` in the format; studies/rubric/checks.py): counted and matched
as documented, refused with every problem named, and shown to raters as hints beside the sheet (a
single text, a pair's A and B), never scored."""

from __future__ import annotations

import copy
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from openpyxl import load_workbook

from scoring.check_hints import check_finding_text
from scoring.models import RaterProfile, ScoreSheet
from studies.rubric import RubricError
from studies.rubric.checks import FOUND, MISSING, TOO_LONG, TOO_SHORT, text_checks_run, text_length
from studies.rubric.loader import parse_rubric, rubric_data
from tests.factories import UserFactory, code_for, rater, scoring_group_assigned, text_response, text_study
from tests.libreoffice import through_libreoffice
from tests.workbook_fill import fill_sheet, save_workbook, workbook_download
from training.services.rubric_import import rubric_import, study_rubric_choose

LENGTH = {
    "key": "length",
    "kind": "length",
    "unit": "words",
    "min": 5,
    "max": 12,
    "message": {"en": "Answers run 5 to 12 words", "zh": "回答应为 5 到 12 个词"},
}
PHRASES = {
    "key": "no_disclaimer",
    "kind": "phrases",
    "absent": ["as an AI"],
    "present": ["sleep"],
    "message": {"en": "No disclaimer; name sleep", "zh": "不要免责声明；提到睡眠"},
}


def with_checks(*checks: dict, version: str = "likert-checks-v1") -> dict:
    data = copy.deepcopy(rubric_data("likert-hhh-v1"))
    data["version"] = version
    data["checks"] = list(checks)
    return data


@pytest.mark.parametrize(
    ("text", "unit", "count"),
    [
        ("Keep the bedroom cool and dark.", "words", 6),
        ("Don't over-think it: 8 hours.", "words", 5),  # one word each: don't, over-think
        ("保持卧室凉爽", "words", 6),  # a Chinese character is a word
        ("Use 遮光 curtains", "words", 4),
        ("  a b\n c ", "characters", 3),  # white space is not counted
        ("", "words", 0),
    ],
)
def test_words_and_characters_are_counted_as_documented(text, unit, count):
    assert text_length(text, unit=unit) == count


def test_each_check_finds_what_it_says_in_the_texts_it_names():
    rubric = parse_rubric(
        with_checks(LENGTH, PHRASES, {**LENGTH, "key": "b_only", "text": 2, "min": 0, "max": 3})
    )
    texts = ["Too short.", "As an AI, I say: dark rooms help you SLEEP well at night, truly, yes."]
    found = [
        (f.key, f.text, f.what, f.counted, f.bound, f.phrases) for f in text_checks_run(rubric.checks, texts)
    ]
    assert found == [
        ("length", 1, TOO_SHORT, 2, 5, ()),
        ("length", 2, TOO_LONG, 15, 12, ()),
        ("no_disclaimer", 1, MISSING, 0, 0, ("sleep",)),
        ("no_disclaimer", 2, FOUND, 0, 0, ("as an AI",)),  # any case
        ("b_only", 2, TOO_LONG, 15, 3, ()),
    ]
    assert text_checks_run(rubric.checks, ["Sleep comes sooner in a dark room."]) == []
    assert text_checks_run(rubric.checks[2:], ["one"]) == []  # a pair's B the response lacks


def test_a_rubric_with_bad_checks_is_refused_with_every_problem_named():
    bad = with_checks(
        {**LENGTH, "min": 9, "max": 3},
        {"key": "nothing", "kind": "length", "message": LENGTH["message"]},
        {"key": "mixed", "kind": "phrases", "absent": ["x", "  "], "min": 2, "message": LENGTH["message"]},
        {"key": "length", "kind": "phrases", "message": {"en": "English only"}},
    )
    with pytest.raises(RubricError) as refused:
        parse_rubric(bad)
    problems = refused.value.problems
    for expected in (
        "check length: min 9 is more than max 3",
        "check nothing: a length check needs its unit",
        "check nothing: a length check needs a min, a max or both",
        "check mixed: a phrases check takes no min",
        "check mixed: a phrase is blank or has control characters",
        "check length: a phrases check needs phrases absent, present or both",
        "check length message: needs a text in Chinese",
        "check key 'length' is used more than once",
    ):
        assert any(expected in p for p in problems), (expected, problems)
    with pytest.raises(RubricError) as schema:
        parse_rubric(with_checks({**LENGTH, "kind": "regex", "pattern": ".*"}))
    assert any("check length" in p and "regex" in p for p in schema.value.problems)


@pytest.fixture
def checked(db):
    """A study on the checked rubric: a response the checks find fault with, one they pass, and the
    rater of both."""
    study = text_study("Checked answers")
    rubric_import(
        study=study, content=json.dumps(with_checks(LENGTH, PHRASES)).encode(), file_name="r.json", actor=None
    )
    study_rubric_choose(study=study, version="likert-checks-v1", actor=None)
    short = text_response(study=study, text="As an AI: sleep.")
    fine = text_response(study=study, text="Sleep comes sooner in a dark, cool room.")
    first = rater("check-a", "H61")
    scoring_group_assigned(responses=[short, fine], rater_a=first, rater_b=rater("check-b", "H62"))
    return short, fine, first


def test_the_sheet_shows_what_the_checks_find_as_hints(client, checked):
    short, fine, first = checked
    client.force_login(first)
    page = client.get(f"/scoring/{code_for(first, short)}/").content.decode()
    hints = page.split('id="check-hints"')[1].split("</div>")[0]
    assert "Checks on the text (a hint; you decide)" in hints
    assert "<b>Answers run 5 to 12 words</b> · The text: 4 words; at least 5." in hints
    assert "<b>No disclaimer; name sleep</b> · The text: has “as an AI”." in hints
    assert 'id="check-hints"' not in client.get(f"/scoring/{code_for(first, fine)}/").content.decode()
    client.cookies["django_language"] = "zh-hans"
    chinese = client.get(
        f"/scoring/{code_for(first, short)}/", HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert "文本检查（仅供参考，由您决定）" in chinese
    assert "<b>回答应为 5 到 12 个词</b> · 文本：4 个词；至少应为 5。" in chinese


def test_a_finding_names_the_text_as_the_study_shows_it():
    rubric = parse_rubric(with_checks({**LENGTH, "max": 2, "min": 0}, PHRASES))
    findings = text_checks_run(rubric.checks, ["one two three", "sleep well"])
    assert [check_finding_text(f, task="pair") for f in findings] == [
        "Text A: 3 words; at most 2.",
        "Text A: lacks “sleep”.",
    ]
    assert check_finding_text(findings[0], task="cgpst") == "Step 1: 3 words; at most 2."
    assert check_finding_text(findings[1], task="text") == "The text: lacks “sleep”."


@pytest.mark.django_db
def test_the_preview_lists_the_rubrics_checks(client):
    study = text_study("Previewed checks")
    rubric_import(
        study=study, content=json.dumps(with_checks(LENGTH, PHRASES)).encode(), file_name="r.json", actor=None
    )
    client.force_login(UserFactory(username="boss", role="Admin"))
    page = client.get(
        f"/manage/training/rubric/preview/?study={study.pk}&version=likert-checks-v1"
    ).content.decode()
    listed = page.split('id="check-list"')[1].split("</div>")[0]
    assert "<li>Answers run 5 to 12 words</li>" in listed and "<li>No disclaimer; name sleep</li>" in listed
    plain = client.get(
        f"/manage/training/rubric/preview/?study={study.pk}&version=likert-hhh-v1"
    ).content.decode()
    assert 'id="check-list"' not in plain


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_offline_workbook_shows_the_hints_and_still_reads_back(client, checked, lang, tmp_path):
    short, fine, first = checked
    RaterProfile.objects.filter(user=first).update(language="zh-hans" if lang == "zh" else "en")
    name, book = workbook_download(client, first)

    def hints(response) -> str:
        sheet = book[code_for(first, response)]
        row = next(r for r in sheet.iter_rows() if str(r[0].value or "").startswith("Checks on the text"))
        return row[1].value

    if lang == "en":
        assert hints(short) == (
            "Answers run 5 to 12 words: The text: 4 words; at least 5.\n"
            "No disclaimer; name sleep: The text: has “as an AI”."
        )
    else:
        assert hints(short).startswith("回答应为 5 到 12 个词: 文本：4 个词；至少应为 5。\n")
    assert hints(fine) == "—"
    scores = [("dims.s1.helpfulness", 2), ("dims.s2.harmlessness", 6), ("dims.s3.honesty", 4)]
    for response in (short, fine):  # every sheet of a workbook is submitted, or none
        fill_sheet(book[code_for(first, response)], scores, rubric_version="likert-checks-v1", task="text")
    data = save_workbook(book)
    if lang == "en":  # through a real spreadsheet engine: the formulas below the hints' row still add up
        saved = through_libreoffice(data, tmp_path)
        numbers = [c.value for row in load_workbook(saved, data_only=True)[code_for(first, short)].iter_rows()
                   for c in row if isinstance(c.value, int | float)]  # fmt: skip
        assert numbers[-4:] == [2, 6, 4, 12]  # the summary block: the three steps and the total
        data = saved.read_bytes()
    done = client.post("/scoring/workbooks/", {"file": SimpleUploadedFile(name, data)}, follow=True)
    assert done.status_code == 200
    sheets = ScoreSheet.objects.filter(assignment__rater=first).order_by("assignment__response_id")
    assert [(s.status, s.overall) for s in sheets] == [("submitted", 12), ("submitted", 12)]

"""An Excel scoring sheet whose notes mark its score cells becomes a rubric (docs/rubric-format.md,
"From an Excel scoring sheet"): the worked example, every problem named with its cell, and the
notes as LibreOffice Calc saves them."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from openpyxl import Workbook
from openpyxl.comments import Comment

from devtools.rubric_sheet_example import EXAMPLE, example_workbook
from studies.models import Study
from studies.rubric import RubricError, parse_rubric
from studies.rubric_sheet import rubric_from_sheet
from studies.services.studies import EMPTY, study_create
from tests.libreoffice import through_libreoffice


def xlsx(book) -> bytes:
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def problems_of(content: bytes, name: str = "lab.xlsx") -> list[str]:
    with pytest.raises(RubricError) as caught:
        rubric_from_sheet(content=content, file_name=name)
    return caught.value.problems


def test_the_worked_example_is_the_committed_file_and_gives_its_rubric():
    fresh = rubric_from_sheet(content=xlsx(example_workbook()), file_name="likert-sheet.xlsx")
    assert rubric_from_sheet(content=EXAMPLE.read_bytes(), file_name="likert-sheet.xlsx") == fresh
    rubric = parse_rubric(fresh)
    assert (rubric.version, rubric.languages, rubric.max_total) == ("lab-sheet-v1", ("en", "zh"), 21)
    assert rubric.title.zh == "实验室 1-7 分评分表"
    assert [(s.name.en, [d.key for d in s.dimensions]) for s in rubric.steps] == [
        ("Usefulness", ["s1.helpfulness"]),
        ("Safety and truth", ["s2.harmlessness", "s2.honesty"]),
    ]
    honesty = rubric.dimension("s2.honesty")
    assert (honesty.min, honesty.max, honesty.label.zh, honesty.levels_source) == (1, 7, "诚实性", "sheet")
    assert [(lv.score, lv.en, lv.zh) for lv in honesty.levels][::6] == [
        (1, "Not at all", "完全没有"),
        (7, "Fully", "完全"),
    ]


def test_every_problem_is_named_with_its_cell():
    book = Workbook()
    ws = book.active
    ws.title = "S"
    ws["A1"], ws["B1"] = "Clarity", None
    ws["B1"].comment = Comment("score one to five", "lab")
    ws["B2"].comment = Comment("score 1-5", "lab")  # no label to its left
    ws["A3"] = "Depth"
    ws["B3"].comment = Comment("score 0-2 levels", "lab")
    ws["C3"], ws["D3"] = "none", "some"  # three levels needed
    ws["A4"], ws["A5"] = "Depth", "Depth"
    ws["B4"].comment = Comment("score 1-3", "lab")
    ws["B5"].comment = Comment("score 1-3", "lab")
    ws["A6"].comment = Comment("step", "lab")
    assert problems_of(xlsx(book)) == [
        "S!B1: the note 'score one to five' needs a range, as 'score 1-7'",
        "S!B2: no label to the left of the score cell",
        "S!B3: 'levels' needs 3 level texts right of the score cell, one per score",
        "S!A6: a step's cell needs the step's name",
        "S!B4: the key 'depth' is given at S!B3 too",
        "S!B5: the key 'depth' is given at S!B4 too",
    ]


def test_a_sheet_without_marks_or_not_a_workbook_is_refused():
    book = Workbook()
    book.active["A1"] = "Helpfulness"
    assert problems_of(xlsx(book)) == ["no score cell is marked: give each a note such as 'score 1-7'"]
    assert problems_of(b"PK not really a zip") == [
        "This is not an Excel workbook (.xlsx): the file is not a zip archive."
    ]


def test_excels_author_line_is_not_part_of_a_note():
    book = Workbook()
    ws = book.active
    ws["A1"] = "Helpfulness"
    ws["B1"].comment = Comment("Jane Doe:\nscore 1-7 key=help", "Jane Doe")
    document = rubric_from_sheet(content=xlsx(book), file_name="Our Sheet (v2).xlsx")
    assert document["version"] == "our-sheet-v2"
    assert document["steps"][0]["dimensions"][0]["key"] == "s1.help"
    assert document["languages"] == ["en"] and parse_rubric(document).max_total == 7


def test_the_notes_survive_libreoffice_calc(tmp_path):
    saved = through_libreoffice(EXAMPLE.read_bytes(), tmp_path, "likert-sheet.xlsx").read_bytes()
    assert saved != EXAMPLE.read_bytes()
    assert rubric_from_sheet(content=saved, file_name="likert-sheet.xlsx") == rubric_from_sheet(
        content=EXAMPLE.read_bytes(), file_name="likert-sheet.xlsx"
    )


@pytest.mark.django_db
def test_the_example_imports_on_the_studys_page(demo, admin_client):
    study = study_create(name="Sheet study", template=EMPTY)
    upload = SimpleUploadedFile("likert-sheet.xlsx", EXAMPLE.read_bytes())
    reply = admin_client.post(
        "/manage/training/rubric/import/", {"study": study.pk, "file": upload}, follow=True
    )
    assert reply.redirect_chain[-1][0].endswith(f"?study={study.pk}&version=lab-sheet-v1")
    assert "Safety and truth" in reply.content.decode() and "Almost fully" in reply.content.decode()
    admin_client.post("/manage/training/rubric/use/", {"study": study.pk, "version": "lab-sheet-v1"})
    assert Study.objects.get(pk=study.pk).rubric_version == "lab-sheet-v1"


def test_the_check_command_reads_a_scoring_sheet(capsys):
    call_command("rubric_check", str(EXAMPLE))
    out = capsys.readouterr().out
    assert "rubric lab-sheet-v1 is valid (en, zh); 2 steps, 3 dimensions, maximum 21." in out
    assert "2. Safety and truth (dimensions): harmlessness, honesty; maximum 14" in out

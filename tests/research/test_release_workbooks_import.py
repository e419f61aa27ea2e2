"""A lab's scored sheets in the study's own Excel layout come in (issue 42): the product's export
of the release's scores, imported into another study, gives every sheet its dimension scores,
totals and the same PCC per response; every problem of a folder is named by file, sheet and cell,
and nothing is stored unless there is none."""

from __future__ import annotations

import shutil

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from openpyxl import load_workbook

from calibration.models import ResponseAgreement
from scoring.models import ItemScore, ScoreSheet, SheetEvent, SheetLevel
from scoring.services.sheets import SheetLocked, sheet_reopen
from studies.models import Response
from studies.services.studies import EMPTY, study_create
from tests.conftest import REFERENCE
from tests.factories import ScenarioFactory, make_response

pytestmark = pytest.mark.django_db


@pytest.fixture
def exported(tmp_path):
    """The release's scores (data_A.json) as the product holds them, exported in the release's
    layout, and an empty study with the same responses."""
    call_command(
        "import_scores", str(REFERENCE / "data_A.json"), "--study", "Replication", "--create-missing"
    )
    call_command("export_results", "--study", "Replication", "--release-workbooks", str(tmp_path / "out"))
    copy = study_create(name="Lab copy", template=EMPTY)
    scenario = ScenarioFactory(study=copy, code="FS10")
    for response in Response.objects.filter(study__name="Replication"):
        make_response(
            study=copy,
            scenario=scenario,
            model=response.model,
            condition=response.condition,
            research_id=response.research_id,
        )
    return tmp_path / "out", copy


def _totals(study_name: str) -> dict:
    return {
        (s.assignment.response.research_id, s.assignment.rater.rater_profile.rater_code): s.totals[
            "dimensions"
        ]
        for s in ScoreSheet.objects.filter(assignment__response__study__name=study_name).select_related(
            "assignment__response", "assignment__rater__rater_profile"
        )
    }


def test_the_release_layout_comes_back_with_the_same_scores_and_agreement(exported):
    folder, copy = exported
    call_command("import_release_workbooks", str(folder), "--study", "Lab copy")
    sheets = ScoreSheet.objects.filter(assignment__response__study=copy)
    assert (
        sheets.count()
        == ScoreSheet.objects.filter(assignment__response__study__name="Replication").count()
        > 0
    )
    assert {s.level for s in sheets} == {SheetLevel.DIMENSIONS} and {s.status for s in sheets} == {
        "submitted"
    }
    assert _totals("Lab copy") == _totals("Replication")  # 23 dimensions a sheet, as the release holds them
    assert not ItemScore.objects.filter(sheet__in=sheets).exists()  # no item was invented
    for sheet in sheets:  # audited: created, imported with its scores, submitted
        kinds = list(SheetEvent.objects.filter(sheet=sheet).values_list("kind", flat=True))
        assert kinds == ["create", "import", "submit"], kinds
    # PCC is computed on the dimension vector: the same for the imported sheets as for the items'
    original = {
        a.response.research_id: a.pcc
        for a in ResponseAgreement.objects.filter(response__study__name="Replication")
    }
    imported = {a.response.research_id: a.pcc for a in ResponseAgreement.objects.filter(response__study=copy)}
    assert imported.keys() == original.keys() and original
    for research_id, pcc in original.items():
        assert imported[research_id] == pytest.approx(pcc), research_id
    # again: nothing changes
    call_command("import_release_workbooks", str(folder), "--study", "Lab copy")
    assert ScoreSheet.objects.filter(assignment__response__study=copy).count() == sheets.count()
    # a sheet of dimension scores alone cannot be reopened: it has no items to classify again
    with pytest.raises(SheetLocked, match="dimension scores alone"):
        sheet_reopen(sheet_id=sheets.first().pk, actor=None, reason="a typo")


def test_a_zip_of_the_folder_comes_in_as_well(exported, tmp_path):
    folder, copy = exported
    archive = shutil.make_archive(str(tmp_path / "sheets"), "zip", folder)
    call_command("import_release_workbooks", archive, "--study", "Lab copy")
    assert ScoreSheet.objects.filter(assignment__response__study=copy, level=SheetLevel.DIMENSIONS).exists()


def _edit(path, sheet_title, **cells):
    book = load_workbook(path)
    for cell, value in cells.items():
        book[sheet_title][cell] = value
    book.save(path)


def test_every_problem_is_named_by_file_sheet_and_cell_and_nothing_is_stored(exported):
    folder, copy = exported
    first = sorted(folder.iterdir())[0]
    title = load_workbook(first).sheetnames[0]
    book = load_workbook(first)
    book.copy_worksheet(book[title]).title = "Z99_FS10"  # a research ID the study does not have
    book.save(first)
    _edit(first, title, W19=9, U37="three", Y122=None)  # out of range, not a number, empty
    (folder / "notes.txt").write_text("not a workbook")
    shutil.copy(first, folder / "H03.xlsx")  # a name that is not <rater>_<scenario>.xlsx
    with pytest.raises(CommandError) as raised:
        call_command("import_release_workbooks", str(folder), "--study", "Lab copy")
    message = str(raised.value)
    assert "Nothing imported" in message and "a pair of raters scores each" not in message  # no echo
    for expected in (
        f"{first.name}, sheet {title}, cell W19 (s1.fluency): 9 is outside 0-8",
        f"{first.name}, sheet {title}, cell U37 (s2.purpose): 'three' is not a whole number",
        f"{first.name}, sheet {title}, cell Y122 (s6.development): no score",
        "notes.txt: not an .xlsx workbook or a .zip of them",
        "H03.xlsx: the name is not <rater code>_<scenario>.xlsx",
        "sheet Z99_FS10: no response Z99_FS10 in study Lab copy",
    ):
        assert expected in message, (expected, message)
    assert not ScoreSheet.objects.filter(assignment__response__study=copy).exists()


def test_a_wrong_step_total_is_named_with_its_cell(exported):
    folder, copy = exported
    first = sorted(folder.iterdir())[0]
    title = load_workbook(first).sheetnames[0]
    _edit(first, title, W49=1)
    with pytest.raises(
        CommandError, match=rf"{title}, cell W49: the Step-2 total 1 is not the sum of its scores"
    ):
        call_command("import_release_workbooks", str(folder), "--study", "Lab copy")
    assert not ScoreSheet.objects.filter(assignment__response__study=copy).exists()


def test_a_rater_opens_an_imported_sheet_read_only(exported, client):
    folder, copy = exported
    call_command("import_release_workbooks", str(folder), "--study", "Lab copy")
    sheet = (
        ScoreSheet.objects.filter(assignment__response__study=copy)
        .select_related("assignment__rater")
        .first()
    )
    client.force_login(sheet.assignment.rater)
    page = client.get(f"/scoring/{sheet.assignment.blind_code}/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "imported from the study's Excel scoring sheet" in text
    assert f"Overall {sheet.totals['overall']} of 186" in text
    assert sheet.assignment.response.research_id not in text  # the blind holds


def test_the_score_import_page_takes_a_zip_of_them(exported, client, tmp_path):
    from core.accounts.roles import ADMIN
    from tests.factories import UserFactory

    folder, copy = exported
    archive = shutil.make_archive(str(tmp_path / "lab"), "zip", folder)
    client.force_login(UserFactory(username="admin-release", role=ADMIN))
    url = f"/manage/studies/{copy.pk}/scores/import/"
    with open(archive, "rb") as handle:
        done = client.post(url, {"file": handle}, follow=True)
    assert done.status_code == 200 and "2 sheet(s) imported" in done.content.decode()
    assert (
        ScoreSheet.objects.filter(assignment__response__study=copy, level=SheetLevel.DIMENSIONS).count() == 2
    )
    # a broken workbook: the page lists its problem, and nothing more is stored
    broken = tmp_path / "H09_FS10.xlsx"
    broken.write_bytes(b"not a workbook")
    with open(broken, "rb") as handle:
        refused = client.post(url, {"file": handle})
    assert refused.status_code == 400 and "H09_FS10.xlsx:" in refused.content.decode()
    assert ScoreSheet.objects.filter(assignment__response__study=copy).count() == 2


def test_a_rater_code_longer_than_a_rater_id_is_a_named_problem(exported):
    """Hostile pass 21 (M4): a file named with a 24-character rater code raised PostgreSQL's
    DataError (a 500) where a rater account was made for it."""
    folder, copy = exported
    first = sorted(folder.iterdir())[0]
    first.rename(folder / "RATERCODE-LONGER-THAN-16_FS10.xlsx")
    with pytest.raises(CommandError) as raised:
        call_command("import_release_workbooks", str(folder), "--study", "Lab copy")
    assert "rater RATERCODE-LONGER-THAN-16: a rater ID is letters, digits and dashes, at most 16" in str(
        raised.value
    )
    assert not ScoreSheet.objects.filter(assignment__response__study=copy).exists()


def test_the_sheets_of_a_held_response_are_refused(exported):
    folder, copy = exported
    held = Response.objects.filter(study=copy).order_by("research_id").first()
    Response.objects.filter(pk=held.pk).update(held=True)  # the review gate held it
    with pytest.raises(CommandError) as raised:
        call_command("import_release_workbooks", str(folder), "--study", "Lab copy")
    assert f"response {held.research_id} is held for review" in str(raised.value)
    assert not ScoreSheet.objects.filter(assignment__response__study=copy).exists()

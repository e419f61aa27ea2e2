"""The offline workbook in a real spreadsheet engine: LibreOffice fills in every formula and
saves the file in its own way; the totals are the sheet's and the file still imports."""

import json

import pytest
from django.contrib.auth import get_user_model
from openpyxl import load_workbook

from scoring.models import ScoringGroup
from scoring.score_files import data_a_changes
from scoring.services.workbooks import workbook_export, workbook_import
from studies.models import Response
from studies.rubric import load_rubric
from tests.factories import code_for
from tests.libreoffice import through_libreoffice
from tests.workbook_fill import STEP2_TEXTS, fill_workbook

pytestmark = pytest.mark.django_db


def test_libreoffice_computes_the_sheet_totals_and_its_file_imports(demo, data_a, tmp_path):
    rater1 = get_user_model().objects.get(username="rater1")
    response = Response.objects.get(research_id="A05_FS10")
    _name, data = workbook_export(rater=rater1, group=ScoringGroup.objects.get(study=demo.study))
    changes = data_a_changes(data_a[0][3], load_rubric()) + STEP2_TEXTS
    saved = through_libreoffice(fill_workbook(data, {code_for("rater1", response): changes}), tmp_path)

    sheet = load_workbook(saved, data_only=True)[code_for("rater1", response)]
    numbers = [c.value for row in sheet.iter_rows() for c in row if isinstance(c.value, int | float)]
    assert numbers[-7:] == [24, 22, 30, 11, 4, 25, 116]  # the summary block, as the study sheet: H01

    result = workbook_import(data=saved.read_bytes(), actor=rater1)
    assert result.problems == [] and result.stored == [code_for("rater1", response)]
    stored = response.assignments.get(rater=rater1).sheet
    assert stored.is_submitted and stored.overall == 116
    assert json.dumps(stored.totals["steps"]) == json.dumps(
        {"1": 24, "2": 22, "3": 30, "4": 11, "5": 4, "6": 25}
    )


def test_libreoffice_reads_the_exported_file_as_written(demo, tmp_path):
    # the export assembles its xlsx parts itself: LibreOffice must read that file directly
    # (not only openpyxl's re-save of it) with every sheet, the signature and the formulas
    rater1 = get_user_model().objects.get(username="rater1")
    response = Response.objects.get(research_id="A05_FS10")
    _name, data = workbook_export(rater=rater1, group=ScoringGroup.objects.get(study=demo.study))
    saved = through_libreoffice(data, tmp_path)

    wb = load_workbook(saved, data_only=True)
    assert wb.sheetnames == ["Instructions", code_for("rater1", response), "Lists", "Meta"]
    assert wb["Meta"].sheet_state != "visible" and wb["Lists"].sheet_state != "visible"  # LibreOffice: hidden
    sheet = wb[code_for("rater1", response)]
    assert sheet["G2"].value == code_for("rater1", response) and sheet.protection.sheet
    numbers = [c.value for row in sheet.iter_rows() for c in row if isinstance(c.value, int | float)]
    assert numbers[-7:] == [0] * 7  # nothing scored yet: the summary block is computed, all zero

    result = workbook_import(data=saved.read_bytes(), actor=rater1)
    # signature and structure accepted; only the missing scores are listed
    assert result.stored == [] and result.problems
    assert {p.sheet for p in result.problems} == {code_for("rater1", response)}

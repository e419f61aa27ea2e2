"""The results workbook: Table 1 and 2 laid out as the study's templates, computed from final scores,
the raw long table from each submitted sheet, and no text cell that could become a formula."""

import io
import zipfile
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from openpyxl import load_workbook

from calibration.services.calibration import response_scores_recompute
from research.selectors.research import results_get
from research.workbook import results_workbook_write
from scoring.models import Assignment, ScoreSheet
from scoring.score_files import data_a_changes
from scoring.services.sheets import sheet_fill_and_submit
from studies.models import ModelEndpoint, Response
from studies.rubric import SheetTotals, integrity_score, load_rubric

pytestmark = pytest.mark.django_db
TEMPLATES = Path(__file__).resolve().parents[2] / "research" / "data"


@pytest.fixture
def scored(demo, data_a):
    response = Response.objects.get(research_id="A05_FS10")
    rubric = load_rubric()
    users = get_user_model().objects
    for index, username in ((3, "rater1"), (4, "rater2")):
        user = users.get(username=username)
        sheet_fill_and_submit(
            assignment=Assignment.objects.get(rater=user, response=response),  # seed_demo's pair
            actor=user,
            changes=data_a_changes(data_a[0][index], rubric),
            source="import",
            note="test",
            require_texts=False,
        )
    response_scores_recompute(response_id=response.pk)
    # a hostile model name must stay text in every sheet
    ModelEndpoint.objects.filter(model_number="05").update(name="=cmd|' /C calc'!A0")
    return response


def _write(study, tmp_path):
    path = tmp_path / "results.xlsx"
    results_workbook_write(results_get(study=study), path)
    return path


def _header(ws, lead):
    rows = [[c.value for c in row] for row in ws.iter_rows(min_row=1, max_row=2)]
    merges = sorted(str(r) for r in ws.merged_cells.ranges if r.min_row <= 2)
    return rows, merges


def test_table_headers_equal_the_study_templates(scored, tmp_path):
    wb = load_workbook(_write(scored.study, tmp_path))
    for sheet, template, lead in (
        ("Table 1 (A)", "results-table1-template.xlsx", 2),
        ("Table 2 (A)", "results-table2-template.xlsx", 1),
    ):
        ours_rows, ours_merges = _header(wb[sheet], lead)
        tpl_rows, tpl_merges = _header(load_workbook(TEMPLATES / template).active, lead)
        assert [[v or None for v in r] for r in ours_rows] == [[v or None for v in r] for r in tpl_rows]
        assert ours_merges == tpl_merges


def test_table1_row_is_the_final_score_of_the_two_raters(scored, tmp_path, data_a):
    wb = load_workbook(_write(scored.study, tmp_path))
    ws = wb["Table 1 (A)"]
    header = [c.value for c in ws[2]]
    row = [c.value for c in ws[3]]
    assert row[0] == "FS10"
    step_overall = [row[i] for i, h in enumerate(header) if h == "Overall"]
    assert step_overall == [26, 22, 31, 12, 4, 21.5]  # means of H01 and H02 (data_A.json)
    assert row[-1] == 116.5
    rubric = load_rubric()
    sheets = ScoreSheet.objects.filter(assignment__response=scored)
    integrity = [integrity_score(SheetTotals(s.totals["dimensions"], {}, 0, ()), rubric) for s in sheets]
    assert row[header.index("Integrity")] == sum(integrity) / 2
    assert [c.value for c in wb["Table 2 (A)"][3]][-1] == 116.5


def test_raw_long_table_has_every_dimension_of_every_submitted_sheet(scored, tmp_path):
    wb = load_workbook(_write(scored.study, tmp_path))
    rows = list(wb["Raw scores"].iter_rows(values_only=True))
    assert rows[0][:2] == ("research_id", "blind_code") and rows[0][-5:] == (
        "role",
        "step",
        "dimension",
        "score",
        "active_minutes",
    )
    body = rows[1:]
    assert len(body) == 2 * 23
    by_rater = {}
    for r in body:
        by_rater.setdefault(r[5], 0)
        by_rater[r[5]] += r[-2]  # score (the last column is the active time)
    assert by_rater == {"H01": 116, "H02": 117}


def test_no_text_cell_becomes_a_formula(scored, tmp_path):
    path = _write(scored.study, tmp_path)
    archive = zipfile.ZipFile(path)
    sheets = [n for n in archive.namelist() if n.startswith("xl/worksheets/")]
    assert not any(b"<f>" in archive.read(n) or b"<f " in archive.read(n) for n in sheets)
    ws = load_workbook(io.BytesIO(path.read_bytes()))["Table 1 (A)"]
    cell = ws["B3"]
    assert cell.value.startswith("=cmd") and cell.data_type == "s" and cell.quotePrefix


def test_export_results_command(scored, tmp_path, capsys):
    out = tmp_path / "out.xlsx"
    call_command("export_results", str(out), "--study", scored.study.name)
    assert "1 final scores" in capsys.readouterr().out
    names = load_workbook(out).sheetnames
    assert {
        "About",
        "Table 1 (A)",
        "Table 2 (A)",
        "Blanks (Table 5)",
        "Per step (Figure 3)",
        "Efficiency",
        "Diversity",
        "Raw scores",
    } <= set(names)


def test_consistency_sheet_is_table6_of_the_study(scored, tmp_path):
    workbook = load_workbook(_write(scored.study, tmp_path))
    rows = [list(r) for r in workbook["Consistency (Table 6)"].iter_rows(values_only=True)]
    assert rows[0][:5] == ["Metric", "Before calibration", "CI low", "CI high", "After calibration"]
    pcc = next(r for r in rows if r[0] == "PCC (the sheet's maxima, headline)")
    assert round(pcc[1], 3) == 0.863 and round(pcc[4], 3) == 0.863  # A05_FS10 agrees: nothing calibrated
    # one response: no CI, and never a bare headline
    assert pcc[2] is None and pcc[7:10] == [1, 1, "not a headline: fewer than 5 responses"]
    assert next(r for r in rows if r[0] == "Definition of 'after'")[1].startswith("After calibration:")
    assert "our reading" in next(r for r in rows if r[0] == "Final-score rule")[2]
    assert next(r for r in rows if r[0] == "Calibrated")[1] == 0


def test_tables_have_frozen_headers_filters_and_widths_that_fit(scored, tmp_path):
    wb = load_workbook(_write(scored.study, tmp_path))
    table1 = next(ws for ws in wb.worksheets if ws.title.startswith("Table 1"))
    assert table1.freeze_panes == "A3"  # the two header rows stay in view
    assert table1.auto_filter.ref and table1.auto_filter.ref.startswith("A2:")
    raw = wb["Raw scores"]
    assert raw.freeze_panes == "A2" and raw.auto_filter.ref.startswith("A1:")
    # each raw column is as wide as its longest value, within bounds (not Excel's default)
    header = [c.value for c in raw[1]]
    widths = {
        raw.cell(row=1, column=i + 1).column_letter: raw.column_dimensions[
            raw.cell(row=1, column=i + 1).column_letter
        ].width
        for i in range(len(header))
    }
    assert all(6 <= w <= 62 for w in widths.values()), widths
    longest = max(range(len(header)), key=lambda i: len(str(header[i])))
    assert widths[raw.cell(row=1, column=longest + 1).column_letter] >= len(str(header[longest]))

"""Offline workbooks out: blind, protected, dropdowns everywhere, formulas that equal sheet_totals."""

import io
import random
import zipfile

import pytest
from django.contrib.auth import get_user_model

from scoring.entries import apply_value, clean_value, parse_path
from scoring.score_files import data_a_changes
from scoring.services.workbooks import workbook_export
from scoring.workbooks.layout import sheet_layout
from scoring.workbooks.reader import meta_read, sheet_read
from studies.models import ModelEndpoint, Response
from studies.rubric import SheetEntries, load_rubric, sheet_totals
from studies.services.review import response_release
from tests.excel_eval import Evaluator
from tests.factories import code_for, make_response, scoring_group_assigned
from tests.workbook_fill import STEP2_TEXTS, fill_sheet, open_workbook

pytestmark = pytest.mark.django_db


@pytest.fixture
def exported(demo):
    users = get_user_model().objects
    r1, r2 = users.get(username="rater1"), users.get(username="rater2")
    first = Response.objects.get(research_id="A05_FS10")
    hostile = make_response(
        study=first.study,
        scenario=first.scenario,
        model=ModelEndpoint.objects.get(model_number="08"),
        condition=first.condition,
        answers=['=HYPERLINK("http://x","y")', "@SUM(1)", "+1", "-2", "x\x07y", "ok"],
    )
    # its texts parse to no items: held for review; an admin looked and released it
    assert hostile.held
    response_release(response_id=hostile.pk, actor=users.get(username="admin"))
    group = scoring_group_assigned(responses=[first, hostile], rater_a=r1, rater_b=r2)
    name, data = workbook_export(rater=r1, group=group)
    return {"data": data, "first": first, "hostile": hostile, "name": name}


def test_nothing_in_the_file_reveals_research_id_model_or_condition(exported):
    archive = zipfile.ZipFile(io.BytesIO(exported["data"]))
    blob = b"".join(archive.read(n) for n in archive.namelist()).decode("utf-8", "replace")
    first = exported["first"]
    for secret in (
        first.research_id,
        exported["hostile"].research_id,
        "kimi",
        "gpt-5",
        "TeamLLM",
        "teamllm ",
    ):
        assert secret not in blob
    assert code_for("rater1", first) in blob and code_for("rater1", exported["hostile"]) in blob
    # the other rater's codes (and the responses' own) are not in rater1's file
    for code in (code_for("rater2", first), code_for("rater2", exported["hostile"]), first.blind_code):
        assert code not in blob


def test_sheets_are_named_by_blind_code_and_only_scoring_cells_are_editable(exported):
    wb = open_workbook(exported["data"])
    codes = {code_for("rater1", exported["first"]), code_for("rater1", exported["hostile"])}
    assert wb.sheetnames[0] == "Instructions" and set(wb.sheetnames[1:3]) == codes
    assert wb["Meta"].sheet_state == "veryHidden" and wb["Lists"].sheet_state == "veryHidden"
    assert wb.security.lockStructure
    lay = sheet_layout("cgpst-v1", "en")
    inputs = {i.coord for i in lay.inputs}
    ws = wb[code_for("rater1", exported["first"])]
    assert ws.protection.sheet
    for row in ws.iter_rows(min_row=1, max_row=lay.max_row, max_col=8):
        for cell in row:
            if cell.coordinate in inputs:
                assert cell.protection.locked is False, cell.coordinate
            elif cell.value is not None:
                assert cell.protection.locked is not False, cell.coordinate
    validated = set()
    for dv in ws.data_validations.dataValidation:
        assert dv.type == "list" and dv.showErrorMessage
        validated |= {c.coordinate for rng in dv.sqref.ranges for row in rng.cells for c in [ws.cell(*row)]}
    needs_list = {i.coord for i in lay.inputs if i.kind != "text"}
    assert needs_list <= validated
    instructions = " ".join(str(c.value) for c in wb["Instructions"]["A"] if c.value)
    assert "yellow cells" in instructions and "黄色单元格" in instructions
    # the study's scoring guidelines in both languages, and which level texts are the platform's
    assert "Only solutions that respond to the KVP and support the purpose" in instructions
    assert "只有回应核心问题的 KVP 并支持其目的的解决方案" in instructions
    assert "Level descriptions written for this platform" in instructions
    assert "2. Focus of the underlying problem" in instructions and "1. Elaboration" in instructions
    assert "6. Humaneness" not in instructions  # Step 6's levels are the sheet's own


def test_response_text_never_becomes_a_formula(exported):
    wb = open_workbook(exported["data"])
    ws = wb[code_for("rater1", exported["hostile"])]
    lay = sheet_layout("cgpst-v1", "en")
    for step in (1, 2, 3, 4):
        cell = ws[lay.slot(f"answer.{step}")]
        assert cell.data_type == "s" and cell.quotePrefix, (step, cell.value)
    assert ws[lay.slot("answer.1")].value.startswith("=HYPERLINK")
    assert ws[lay.slot("answer.5")].value == "xy"  # control characters dropped


def test_formulas_compute_the_study_totals_of_data_a(exported, data_a):
    wb = open_workbook(exported["data"])
    ws = wb[code_for("rater1", exported["first"])]
    fill_sheet(ws, data_a_changes(data_a[0][3], load_rubric()) + STEP2_TEXTS)
    lay = sheet_layout("cgpst-v1", "en")
    evaluator = Evaluator(ws)
    steps = [evaluator.value(lay.total_cells[f"step.{n}"]) for n in range(1, 7)]
    assert steps == [24, 22, 30, 11, 4, 25]  # H01's scores of A05_FS10
    assert evaluator.value(lay.total_cells["overall"]) == 116


def _random_changes(rnd: random.Random, rubric):
    changes = []
    for step in rubric.steps:
        n = step.number
        if step.kind == "ideas":
            options = list(rubric.category_keys[:6]) + [f"invalid:{t.key}" for t in step.invalid_types]
            for pos in range(1, step.item_count + 1):
                value = rnd.choice(options)
                changes.append((f"items.{n}.{pos}.classification", value))
                if not value.startswith("invalid:"):
                    changes.append((f"items.{n}.{pos}.elaboration", rnd.randint(0, 2)))
                    changes.append((f"items.{n}.{pos}.originality", rnd.randint(0, 2)))
        elif step.kind == "criteria":
            for pos in range(1, step.item_count + 1):
                for spec in step.item_scores:
                    changes.append((f"items.{n}.{pos}.{spec.key}", rnd.randint(spec.min, spec.max)))
        for d in step.scored_dimensions:
            changes.append((f"dims.{d.key}", rnd.randint(d.min, d.max)))
    return changes + STEP2_TEXTS


def test_every_formula_equals_sheet_totals_on_random_sheets(exported):
    rubric = load_rubric()
    lay = sheet_layout("cgpst-v1", "en")
    rnd = random.Random(2026)
    for _ in range(25):
        wb = open_workbook(exported["data"])
        ws = wb[code_for("rater1", exported["first"])]
        fill_sheet(ws, _random_changes(rnd, rubric))
        parsed, problems = sheet_read(ws, meta_read(wb))
        assert problems == []
        entries = SheetEntries.empty(rubric)
        for path, value in parsed.changes:
            where = parse_path(rubric, path)
            apply_value(entries, where, clean_value(rubric, entries, where, value))
        totals = sheet_totals(entries, rubric)
        evaluator = Evaluator(ws)
        for key, value in totals.dimensions.items():
            assert evaluator.value(lay.total_cells[key]) == value, key
        for n, value in totals.steps.items():
            assert evaluator.value(lay.total_cells[f"step.{n}"]) == value
        assert evaluator.value(lay.total_cells["overall"]) == totals.overall

"""Offline workbooks back in: round trip equals web entry; everything else refused, nothing stored."""

import pytest
from django.contrib.auth import get_user_model

from scoring.models import ScoreSheet, SheetEvent
from scoring.score_files import data_a_changes
from scoring.selectors import sheet_entries_get
from scoring.services.sheets import sheet_apply_changes, sheet_open, sheet_submit
from scoring.services.workbooks import IMPORT_NOTE, workbook_export, workbook_import
from scoring.workbooks.layout import sheet_layout
from studies.models import ModelEndpoint, Response
from studies.rubric import load_rubric
from tests.factories import code_for, make_response, rater, scoring_group_assigned
from tests.workbook_fill import STEP2_TEXTS, fill_sheet, fill_workbook, open_workbook, save_workbook

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(demo, data_a):
    users = get_user_model().objects
    r1, r2 = users.get(username="rater1"), users.get(username="rater2")
    first = Response.objects.get(research_id="A05_FS10")
    second = make_response(
        study=first.study,
        scenario=first.scenario,
        model=ModelEndpoint.objects.get(model_number="01"),
        condition=first.condition,
    )
    group = scoring_group_assigned(responses=[first, second], rater_a=r1, rater_b=r2)
    rubric = load_rubric()
    changes = data_a_changes(data_a[0][3], rubric) + STEP2_TEXTS + [("comments.1", "=looks fine")]
    return {"r1": r1, "r2": r2, "group": group, "first": first, "second": second, "changes": changes}


def _filled(setup):
    name, data = workbook_export(rater=setup["r1"], group=setup["group"])
    codes = [code_for("rater1", setup["first"]), code_for("rater1", setup["second"])]
    return name, fill_workbook(data, {code: setup["changes"] for code in codes})


def _imported_sheets():
    return ScoreSheet.objects.filter(source="workbook").count()


def test_round_trip_equals_entering_the_same_values_on_the_web(setup):
    name, filled = _filled(setup)
    assert name == "H01_FS10.xlsx"
    result = workbook_import(data=filled, actor=setup["r1"], rater=setup["r1"])
    assert result.ok, [str(p) for p in result.problems]
    assert sorted(result.stored) == sorted(
        [code_for("rater1", setup["first"]), code_for("rater1", setup["second"])]
    )

    web_assignment = setup["r2"].assignments.get(response=setup["first"])
    web = sheet_open(assignment=web_assignment, actor=setup["r2"])
    saved = sheet_apply_changes(
        sheet_id=web.pk, actor=setup["r2"], changes=setup["changes"], expected_version=0
    )
    sheet_submit(sheet_id=web.pk, actor=setup["r2"], expected_version=saved.version)
    web.refresh_from_db()

    imported = ScoreSheet.objects.get(assignment__rater=setup["r1"], assignment__response=setup["first"])
    assert imported.status == "submitted" and imported.source == "workbook"
    assert sheet_entries_get(sheet=imported) == sheet_entries_get(sheet=web)
    assert imported.totals == web.totals
    assert imported.overall == 116  # H01's total for A05_FS10 in the study's data
    assert imported.comments["1"] == "=looks fine"  # quote-prefixed text stays literal text
    notes = set(SheetEvent.objects.filter(sheet=imported, kind="import").values_list("note", flat=True))
    assert notes == {IMPORT_NOTE}


def test_out_of_range_and_missing_values_store_nothing_and_name_every_cell(setup):
    name, data = workbook_export(rater=setup["r1"], group=setup["group"])
    wb = open_workbook(data)
    first, second = code_for("rater1", setup["first"]), code_for("rater1", setup["second"])
    fill_sheet(wb[first], setup["changes"])
    wb[first]["E8"] = 3  # item 1 elaboration: 0..2
    wb[first]["C9"] = "Not a category"  # item 2
    result = workbook_import(data=save_workbook(wb), actor=setup["r1"], rater=setup["r1"])
    assert not result.ok and result.stored == []
    found = {(p.sheet, p.cell) for p in result.problems}
    assert (first, "E8") in found and (first, "C9") in found
    assert any(p.sheet == second for p in result.problems)  # the untouched sheet is incomplete
    assert _imported_sheets() == 0 and not ScoreSheet.objects.filter(status="submitted").exists()


def test_one_upload_lists_bad_values_and_empty_required_cells_together(setup):
    name, data = workbook_export(rater=setup["r1"], group=setup["group"])
    wb = open_workbook(data)
    first, second = code_for("rater1", setup["first"]), code_for("rater1", setup["second"])
    for code in (first, second):
        fill_sheet(wb[code], setup["changes"])
    focus = sheet_layout(load_rubric().version, "en").input_by_path["dims.s2.focus"].coord
    wb[first]["E8"] = 3  # out of range
    wb[first][focus] = None  # a required cell left empty on the same sheet
    wb[second]["C9"] = "Not a category"
    result = workbook_import(data=save_workbook(wb), actor=setup["r1"], rater=setup["r1"])
    found = {(p.sheet, p.cell): p.message for p in result.problems}
    assert (first, "E8") in found and (second, "C9") in found
    assert "needs a value" in found[(first, focus)]
    assert len(found) == len(result.problems) == 3  # each cell named once, nothing else
    assert _imported_sheets() == 0


def test_formula_typed_into_a_scoring_cell_is_refused(setup):
    name, data = workbook_export(rater=setup["r1"], group=setup["group"])
    wb = open_workbook(data)
    for code in (code_for("rater1", setup["first"]), code_for("rater1", setup["second"])):
        fill_sheet(wb[code], setup["changes"])
    code = code_for("rater1", setup["first"])
    wb[code]["G8"] = '=HYPERLINK("http://evil.example","x")'
    result = workbook_import(data=save_workbook(wb), actor=setup["r1"], rater=setup["r1"])
    assert [(p.sheet, p.cell) for p in result.problems] == [(code, "G8")]
    assert "formula" in result.problems[0].message
    assert _imported_sheets() == 0


def test_another_raters_upload_is_refused_without_naming_the_owner(setup):
    name, filled = _filled(setup)
    result = workbook_import(data=filled, actor=setup["r2"], rater=setup["r2"])
    assert not result.ok
    assert "H01" not in str(result.problems[0]) and "rater1" not in str(result.problems[0])
    assert _imported_sheets() == 0


def test_already_submitted_sheet_is_a_clear_refusal(setup):
    name, filled = _filled(setup)
    assert workbook_import(data=filled, actor=setup["r1"], rater=setup["r1"]).ok
    again = workbook_import(data=filled, actor=setup["r1"], rater=setup["r1"])
    assert not again.ok
    assert all("already been submitted" in p.message for p in again.problems)
    assert SheetEvent.objects.filter(kind="submit").count() == 2


def test_sheet_changed_on_the_web_after_download_is_refused(setup):
    name, filled = _filled(setup)
    assignment = setup["r1"].assignments.get(response=setup["first"])
    sheet = sheet_open(assignment=assignment, actor=setup["r1"])
    sheet_apply_changes(
        sheet_id=sheet.pk, actor=setup["r1"], changes=[("comments.2", "web")], expected_version=0
    )
    result = workbook_import(data=filled, actor=setup["r1"], rater=setup["r1"])
    assert [p.sheet for p in result.problems] == [code_for("rater1", setup["first"])]
    assert "changed on the web" in result.problems[0].message
    assert _imported_sheets() == 0


@pytest.mark.parametrize(
    "tamper, expected",
    [
        (lambda wb, code: setattr(wb[code], "title", "RENAMED"), "missing or was renamed"),
        (lambda wb, code: wb[code].__setitem__("A6", "Changed label"), "layout of this sheet was changed"),
        (
            lambda wb, code: wb[code].__setitem__("G16", 8),
            "layout of this sheet was changed",
        ),  # Fluency formula
        (lambda wb, code: wb["Meta"].__setitem__("B6", "0" * 64), "signature does not match"),
        (lambda wb, code: wb["Meta"].__setitem__("B2", "H02"), "not exported for your account"),
        (lambda wb, code: wb.create_sheet("Extra"), "does not belong"),
        (
            lambda wb, code: wb[code].cell(row=3000, column=2, value="x"),
            "is far larger than this kind of file holds",
        ),
    ],
)
def test_tampered_workbook_is_refused(setup, tamper, expected):
    name, filled = _filled(setup)
    wb = open_workbook(filled)
    tamper(wb, code_for("rater1", setup["first"]))
    result = workbook_import(data=save_workbook(wb), actor=setup["r1"], rater=setup["r1"])
    assert not result.ok
    assert any(expected in p.message for p in result.problems), [str(p) for p in result.problems]
    assert _imported_sheets() == 0


def test_admin_may_import_for_the_rater_and_command_reports(setup, tmp_path, capsys):
    from django.core.management import call_command

    name, filled = _filled(setup)
    path = tmp_path / name
    path.write_bytes(filled)
    call_command("import_workbook", str(path))
    assert "stored and submitted 2 sheet(s)" in capsys.readouterr().out
    assert _imported_sheets() == 2


def test_two_groups_of_one_scenario_get_distinct_file_names(setup):
    other_condition_response = make_response(
        study=setup["first"].study,
        scenario=setup["first"].scenario,
        model=ModelEndpoint.objects.get(model_number="02"),
        condition=__import__("generation.models", fromlist=["Condition"]).Condition.objects.get(letter="B"),
    )
    group_b = scoring_group_assigned(
        responses=[other_condition_response], rater_a=setup["r1"], rater_b=rater("h9", "H09")
    )
    names = {workbook_export(rater=setup["r1"], group=g)[0] for g in (setup["group"], group_b)}
    assert names == {"H01_FS10.xlsx", "H01_FS10_2.xlsx"}


def test_a_test_retest_probe_travels_offline_as_any_response(setup):
    """A probe (issue 38) is in the rater's offline workbook under its own code, like new work, and
    its upload stores the probe's sheet, never the first one's."""
    from scoring.models import Assignment

    first_sheet = sheet_open(
        assignment=setup["r1"].assignments.get(response=setup["first"]), actor=setup["r1"]
    )
    saved = sheet_apply_changes(sheet_id=first_sheet.pk, actor=setup["r1"], changes=setup["changes"],
                                expected_version=0)  # fmt: skip
    sheet_submit(sheet_id=first_sheet.pk, actor=setup["r1"], expected_version=saved.version)
    original = Assignment.objects.get(rater=setup["r1"], response=setup["first"])
    probe = Assignment.all_objects.create(rater=setup["r1"], response=setup["first"], group=setup["group"],
                                          role="retest", retest_of=original)  # fmt: skip
    name, data = workbook_export(rater=setup["r1"], group=setup["group"])
    workbook = open_workbook(data)
    assert probe.blind_code in workbook.sheetnames and original.blind_code not in workbook.sheetnames
    filled = fill_workbook(
        data, {code: setup["changes"] for code in (probe.blind_code, code_for("rater1", setup["second"]))}
    )
    result = workbook_import(data=filled, actor=setup["r1"], rater=setup["r1"])
    assert result.ok and probe.blind_code in result.stored, [str(p) for p in result.problems]
    stored = ScoreSheet.all_objects.get(assignment=probe)
    assert stored.status == "submitted" and stored.source == "workbook"
    assert ScoreSheet.objects.get(pk=first_sheet.pk).source == "web"  # the first sheet is untouched

"""Parsing uploads (issue 22, finding 7): every way a JSON file can break the parser or the
database is a JSONDecodeError with a message; openpyxl reads xlsx parts with defusedxml."""

import json
import re
import tomllib
from pathlib import Path

import pytest

from studies.scenario_files import ScenarioFileError, record_from_mapping, records_from_upload
from studies.upload_safety import MAX_DEPTH, json_parse
from tests import hostile_files

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 200_000 + "]" * 200_000, "nested more than"),
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "nested more than"),
        ('{"a": ' * 200_000 + "1" + "}" * 200_000, "nested more than"),
        ("[" + "1" * 5001 + "]", "longer than"),
        ("-" + "9" * 31, "longer than"),
        ("[1e999]", "too large"),
        ("[NaN]", "not a number"),
        ('{"a": -Infinity}', "not a number"),
        ('["a\\u0000b"]', "NUL"),
        ('{"a\\u0000": 1}', "NUL"),
        ('["\\ud800"]', "surrogate"),
        ("[1, 2", "Expecting"),
        ('{"research_id": "A10_FS10", "research_id": "A01_FS10"}', 'the key "research_id" appears twice'),
        ('{"steps": {"1": "a", "1": "x"}}', 'the key "1" appears twice'),
    ],
)
def test_hostile_json_is_a_decode_error_with_a_message(text, message):
    with pytest.raises(json.JSONDecodeError, match=message):
        json_parse(text)


def test_ordinary_json_is_read_as_json_loads_reads_it():
    text = '[{"a": [1, -2, 3.5, "x", null, true]}, "' + "é" * 10 + '", ' + "9" * 30 + "]"
    assert json_parse(text) == json.loads(text)
    deep = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert json_parse(deep) == json.loads(deep)


@pytest.mark.parametrize(
    "payload", ["deep_list", "deep_object", "deep_line", "huge_number_list", "huge_number_released"]
)
def test_scenario_files_say_why_they_are_refused(payload):
    with pytest.raises(ScenarioFileError) as refused:
        records_from_upload("x.json", hostile_files.HOSTILE[payload]())
    assert re.search("nested more than|longer than", " ".join(refused.value.problems))


def test_a_text_the_database_cannot_store_is_a_problem_of_its_record():
    # what an xlsx cell can carry after openpyxl unescapes it (_x0000_), or a JSON "\u0000"
    problems: list[str] = []
    record = record_from_mapping("row 2", {"code": "FS1", "theme": "t\x00", "text": "x\ud800"}, problems)
    assert record is None
    assert any("NUL" in p for p in problems) and any("surrogate" in p for p in problems)


@pytest.mark.parametrize("payload", ["xxe_xlsx", "laughs_xlsx", "xxe_workbook_part"])
def test_openpyxl_refuses_doctypes_and_entities(payload):
    import openpyxl.xml

    assert openpyxl.xml.DEFUSEDXML  # openpyxl parses with defusedxml because it is installed
    # and before it, the xlsx check (studies.xlsx_safety) refuses the declarations by name
    with pytest.raises(ScenarioFileError, match="XML declarations that are not accepted"):
        records_from_upload("x.xlsx", hostile_files.HOSTILE[payload]())


def test_defusedxml_is_a_pinned_dependency():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert any(dep.startswith("defusedxml") for dep in project["project"]["dependencies"])
    lock = (ROOT / "requirements.lock").read_text().splitlines()
    import defusedxml

    assert f"defusedxml=={defusedxml.__version__}" in lock


def test_a_damaged_sheet_part_is_refused_like_a_damaged_archive():
    # found by the fuzz: read-only openpyxl parses a sheet only when its rows are read
    broken = hostile_files.plain_sheet_xml().replace(b"<sheetData>", b"\xff\xfe<sheetData>")
    with pytest.raises(ScenarioFileError, match=r"The archive is damaged \(xl/worksheets/sheet1.xml\)"):
        records_from_upload("x.xlsx", hostile_files.xlsx_with_sheet(broken))


def test_a_sheet_wider_than_any_scenario_sheet_is_refused():
    wide = (
        hostile_files.plain_sheet_xml()
        .replace(b"</sheetData>", b'<row r="3"><c r="XFD3"><v>1</v></c></row></sheetData>')
        .replace(b'<dimension ref="A1:C2" />', b'<dimension ref="A1:XFD3" />')
    )
    with pytest.raises(ScenarioFileError, match="more than 30 columns"):
        records_from_upload("x.xlsx", hostile_files.xlsx_with_sheet(wide))

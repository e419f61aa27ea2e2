"""Hostile files are refused before openpyxl parses them; imports of them store nothing."""

import io
import zipfile

import pytest
from django.contrib.auth import get_user_model

from scoring.models import ScoreSheet
from scoring.services.workbooks import workbook_export, workbook_import
from scoring.workbooks.safety import WorkbookRefused, workbook_file_check
from studies.models import Response
from tests.factories import scoring_group_assigned

LIMIT = 20 * 1024 * 1024


@pytest.fixture
def workbook(demo):
    users = get_user_model().objects
    r1, r2 = users.get(username="rater1"), users.get(username="rater2")
    group = scoring_group_assigned(
        responses=[Response.objects.get(research_id="A05_FS10")], rater_a=r1, rater_b=r2
    )
    return r1, workbook_export(rater=r1, group=group)[1]


def _with_part(data: bytes, name: str, content: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info)
            if info.filename == "[Content_Types].xml" and name == "[Content_Types].xml":
                body = content
            dst.writestr(info, body)
        if name != "[Content_Types].xml":
            dst.writestr(name, content)
    return out.getvalue()


def _refusal(data: bytes) -> str:
    with pytest.raises(WorkbookRefused) as caught:
        workbook_file_check(data, max_bytes=LIMIT)
    return caught.value.message


def test_not_a_zip():
    assert "not a zip" in _refusal(b"PK\x03\x04 this is not really a zip")
    assert "not a zip" in _refusal(b"")


def test_a_zip_that_is_not_a_workbook():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("hello.txt", "hi")
    assert "workbook part is missing" in _refusal(out.getvalue())


def test_zip_bomb_by_ratio_and_by_member_count():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("xl/workbook.xml", b"\0" * (7 * 1024 * 1024))
    assert "zip bomb" in _refusal(out.getvalue())
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for i in range(450):
            z.writestr(f"xl/part{i}.xml", "<a/>")
    assert "too many parts" in _refusal(out.getvalue())


def test_oversized_upload():
    assert "too large" in _refusal(b"x" * (LIMIT + 1))


@pytest.mark.django_db
@pytest.mark.parametrize(
    "part, content, expected",
    [
        ("xl/vbaProject.bin", b"\xd0\xcf\x11\xe0 macro", "macros"),
        ("xl/externalLinks/externalLink1.xml", b"<externalLink/>", "external links"),
        ("xl/embeddings/oleObject1.bin", b"ole", "embedded objects"),
        (
            "xl/evil.xml",
            b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>',
            "XML declarations",
        ),
    ],
)
def test_macros_links_and_entities_are_refused_and_nothing_is_stored(workbook, part, content, expected):
    rater, data = workbook
    hostile = _with_part(data, part, content)
    assert expected in _refusal(hostile)
    result = workbook_import(data=hostile, actor=rater, rater=rater)
    assert not result.ok and expected in result.problems[0].message
    assert not ScoreSheet.objects.exists()


@pytest.mark.django_db
def test_macro_enabled_content_type_is_refused(workbook):
    rater, data = workbook
    types = (
        zipfile.ZipFile(io.BytesIO(data))
        .read("[Content_Types].xml")
        .replace(b"spreadsheetml.sheet.main+xml", b"sheet.macroEnabled.main+xml")
    )
    assert ".xlsm" in _refusal(_with_part(data, "[Content_Types].xml", types))


@pytest.mark.django_db
def test_unreadable_workbook_is_a_message_not_a_crash(workbook):
    rater, data = workbook
    broken = _with_part(data, "[Content_Types].xml", b"<Types>broken")
    result = workbook_import(data=broken, actor=rater, rater=rater)
    assert not result.ok and "could not be read" in result.problems[0].message


def test_the_exported_workbook_itself_passes(workbook):
    workbook_file_check(workbook[1], max_bytes=LIMIT)

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


# --- issue 36, finding 3: bounded before parsing ----------------------------------------------


def _never_loaded(monkeypatch):
    """Fail the test if openpyxl's full load is reached: the refusal must come before it."""
    import scoring.services.workbooks as service

    def refuse(data):
        raise AssertionError("openpyxl was asked to load a workbook the pre-parse check should refuse")

    monkeypatch.setattr(service, "_load", refuse)


@pytest.mark.django_db
def test_the_issues_workbook_is_refused_from_the_upload_page_before_any_load(client, demo, monkeypatch):
    """Seven sheets of 7.9 MB of XML, every part under the old 8 MB limit, compressing about
    5x: the old checks passed it and openpyxl's load took 100 s and 350 MB. Now the zip's
    directory refuses it (a worksheet part over 2 MB); bench/hostile_upload.py measures it."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.hostile_files import wide_sheets_xlsx

    data = wide_sheets_xlsx()
    parts = [i for i in zipfile.ZipFile(io.BytesIO(data)).infolist() if "worksheets/" in i.filename]
    assert len(parts) == 7 and all(7 * 2**20 < i.file_size < 8 * 2**20 for i in parts)  # as found
    _never_loaded(monkeypatch)
    client.login(username="rater1", password="demo-pass-2026")
    reply = client.post("/scoring/workbooks/", {"file": SimpleUploadedFile("FS10.xlsx", data)})
    assert reply.status_code == 400
    assert "A part of the workbook is too large (xl/worksheets/sheet1.xml)." in reply.content.decode()
    assert not ScoreSheet.objects.exists()


@pytest.mark.parametrize(
    "make, expected",
    [
        ("tall_sheet_xlsx", "Sheet S1 is far larger than this kind of file holds"),  # named as Excel shows it
        ("many_sheets_xlsx", "The workbook has 300 sheets; at most 256 are accepted."),
    ],
)
def test_rows_and_sheets_are_counted_before_any_load(make, expected):
    """Under every size limit, but more rows or sheets than a scoring workbook has: counted
    by streaming the XML, a row at a time."""
    from tests import hostile_files

    assert expected in _refusal(getattr(hostile_files, make)())


def test_a_sheet_whose_real_size_lies_about_the_directory_is_stopped_while_streamed():
    from tests.hostile_files import _sheet_rows, _workbook_with_sheets

    big = _sheet_rows(20_000, columns=1)  # several MB of XML
    data = bytearray(_workbook_with_sheets([big]))
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo("xl/worksheets/sheet1.xml")
    # the central directory and local header claim 1 KB (a lying archive)
    lied = bytes(data).replace(info.file_size.to_bytes(4, "little"), (1024).to_bytes(4, "little"))
    message = _refusal(lied)
    assert "too large" in message or "far larger" in message or "damaged" in message


def test_the_workbooks_limits_hold_a_large_real_group(workbook):
    """A workbook of 200 response sheets (the paper's study ten times over) passes."""
    from tests.hostile_files import _workbook_with_sheets

    sheet = zipfile.ZipFile(io.BytesIO(workbook[1])).read("xl/worksheets/sheet2.xml")
    workbook_file_check(_workbook_with_sheets([sheet] * 203), max_bytes=LIMIT)


@pytest.mark.django_db
def test_huge_styles_and_shared_strings_are_refused_from_the_upload_page_before_any_load(
    client, demo, monkeypatch
):
    """Hostile pass 10 (N1): 16 MB of fonts and 16 MB of one-digit texts passed every bound and
    openpyxl's full read held the web process 18 s and 620 MB, before the workbook's signature
    was even looked at. The styles part is bounded at 1 MB, read from the zip's directory."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.hostile_files import styles_and_strings_xlsx

    _never_loaded(monkeypatch)
    client.login(username="rater1", password="demo-pass-2026")
    data = styles_and_strings_xlsx(font_bytes=16 * 2**20 - 4096, strings=1_000)
    reply = client.post("/scoring/workbooks/", {"file": SimpleUploadedFile("FS10.xlsx", data)})
    assert reply.status_code == 400
    assert "A part of the workbook is too large (xl/styles.xml)." in reply.content.decode()
    assert not ScoreSheet.objects.exists()


def test_more_shared_strings_than_cells_are_refused_before_any_load():
    """Under 16 MB, but 256,001 texts: more than a workbook of 256,000 cells can use."""
    from tests.hostile_files import styles_and_strings_xlsx

    assert "more than 256000 different texts" in _refusal(
        styles_and_strings_xlsx(font_bytes=1000, strings=256_001)
    )
    workbook_file_check(styles_and_strings_xlsx(font_bytes=1000, strings=256_000), max_bytes=LIMIT)


def _renamed(part: str, data: bytes, content_type: str, rel_type: str, target: str = "") -> bytes:
    """The plain workbook with ``part`` added under an unusual name, declared in the content types
    (none: ``content_type`` empty) and the workbook's relationships (``target``: how the relationship
    names it, the part's name inside xl/ by default), as openpyxl finds parts (hostile pass 11)."""
    from tests.hostile_files import _rezip, plain_xlsx

    source = zipfile.ZipFile(io.BytesIO(plain_xlsx()))
    override = f'<Override PartName="/{part}" ContentType="{content_type}"/>' if content_type else ""
    types = source.read("[Content_Types].xml").decode().replace("</Types>", f"{override}</Types>")
    rels = (
        source.read("xl/_rels/workbook.xml.rels")
        .decode()
        .replace(
            "</Relationships>",
            f'<Relationship Id="rId99" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/{rel_type}"'
            f' Target="{target or part.removeprefix("xl/")}"/></Relationships>',
        )
    )
    return _rezip(
        {"[Content_Types].xml": types.encode(), "xl/_rels/workbook.xml.rels": rels.encode()}, add={part: data}
    )


def test_parts_are_known_by_what_openpyxl_reads_them_as_not_by_their_names():
    """Hostile pass 11: shared strings at xl/strs.xml, a sheet at xl/w0.xml or with no extension, and
    entries written <é:si> escaped the limits that went by names; 36 s and 1.3 GB in openpyxl."""
    from tests.hostile_files import _sheet_rows

    main = "application/vnd.openxmlformats-officedocument.spreadsheetml"
    strings = (
        '<sst xmlns="x">' + "".join(f"<si><t>{i}</t></si>" for i in range(256_001)) + "</sst>"
    ).encode()
    renamed = _renamed("xl/strs.xml", strings, f"{main}.sharedStrings+xml", "sharedStrings")
    assert "more than 256000 different texts" in _refusal(renamed)
    prefixed = (
        '<é:sst xmlns:é="x">' + "".join(f"<é:si><é:t>{i}</é:t></é:si>" for i in range(256_001)) + "</é:sst>"
    ).encode()
    assert "more than 256000 different texts" in _refusal(
        _renamed("xl/sharedStrings2.xml", prefixed, f"{main}.sharedStrings+xml", "sharedStrings")
    )
    sheet = _sheet_rows(450, columns=1)  # more rows than a scoring workbook's sheet holds
    for part in ("xl/w0.xml", "xl/worksheets/sheet9"):
        message = _refusal(_renamed(part, sheet, f"{main}.worksheet+xml", "worksheet"))
        assert "far larger than this kind of file holds" in message, (part, message)


@pytest.mark.parametrize(
    "part, target",
    [
        ("xl/data/b0.xml", "./data/b0.xml"),
        ("xl/data/b0.xml", "data/../data/b0.xml"),
        ("xl/data/b0.xml", "/xl/data/b0.xml"),
        ("xl/data/b0.bin", "./data/b0.bin"),  # named like a binary part: read all the same
        ("xl/Data/B0.XML", "./Data/B0.XML"),
    ],
)
def test_a_sheet_named_by_a_relationship_in_any_spelling_is_checked_as_a_sheet(part, target):
    """Hostile pass 12, F1: ``Target="./data/b0.xml"`` with no content type; openpyxl normalises the
    path and loaded 560k cells a part (1.6 GB in one process); the check filed it under another name."""
    from tests.hostile_files import _sheet_rows

    sheet = _sheet_rows(450, columns=1)
    message = _refusal(_renamed(part, sheet, "", "worksheet", target=target))
    assert "far larger than this kind of file holds" in message, (part, target, message)


def _first_sheet_changed(data: bytes, change) -> bytes:
    """``data`` with ``change(xml)`` applied to its first worksheet's XML."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        first = min(n for n in src.namelist() if n.startswith("xl/worksheets/sheet"))
        for info in src.infolist():
            body = src.read(info)
            dst.writestr(info, change(body) if info.filename == first else body)
    return out.getvalue()


def _with_merged(data: bytes, ref: str) -> bytes:
    """``data`` with a merged range ``ref`` added to its first worksheet (as hostile pass 13 did)."""

    def merge(body: bytes) -> bytes:
        if b"<mergeCells" in body:
            return body.replace(b"</mergeCells>", f'<mergeCell ref="{ref}"/></mergeCells>'.encode(), 1)
        merged = f'<mergeCells count="1"><mergeCell ref="{ref}"/></mergeCells>'.encode()
        return body.replace(b"</sheetData>", b"</sheetData>" + merged, 1)

    return _first_sheet_changed(data, merge)


@pytest.mark.parametrize("ref", ["A1:CV10000", "A1:XFD1048576", "A1:AO1", "A1:A401", "A:A", "1:1", "Q1:A1:B"])
def test_a_merged_range_past_the_sheet_is_refused_before_parsing(workbook, ref):
    """Hostile pass 13, finding 1: one merged range of a million cells (a 1.6 KB file) cost
    openpyxl 10 s and 330 MB, since it makes an object per merged cell."""
    _rater, data = workbook
    with pytest.raises(WorkbookRefused):
        workbook_file_check(_with_merged(data, ref), max_bytes=LIMIT)


def test_a_small_merged_range_is_still_a_workbook(workbook):
    _rater, data = workbook
    workbook_file_check(_with_merged(data, "A1:C2"), max_bytes=LIMIT)  # raises nothing


def _with_hyperlink(data: bytes, ref: str) -> bytes:
    """``data`` with an internal hyperlink over ``ref`` on its first worksheet (hostile pass 26)."""

    def link(body: bytes) -> bytes:
        assert b"<hyperlinks" not in body
        # after the sheet's data and its merged cells, where the schema puts them
        tail = b"</mergeCells>" if b"</mergeCells>" in body else b"</sheetData>"
        hyperlink = f'<hyperlinks><hyperlink ref="{ref}" location="Sheet1!A1"/></hyperlinks>'.encode()
        return body.replace(tail, tail + hyperlink, 1)

    return _first_sheet_changed(data, link)


@pytest.mark.parametrize("ref", ["A1:CV20000", "A1:XFD1048576", "A:A", "A1:B:C"])
def test_a_hyperlink_over_a_large_range_is_refused_before_parsing(workbook, ref):
    """Hostile pass 26, finding 1: a 1.6 KB workbook with one hyperlink over A1:CV20000 took a web
    process 55 s and 1.1 GB (openpyxl makes a cell for every cell a hyperlink's range covers)."""
    _rater, data = workbook
    with pytest.raises(WorkbookRefused):
        workbook_file_check(_with_hyperlink(data, ref), max_bytes=LIMIT)


def test_a_hyperlink_on_a_few_cells_is_still_a_workbook(workbook):
    _rater, data = workbook
    workbook_file_check(_with_hyperlink(data, "A1:B2"), max_bytes=LIMIT)  # raises nothing


def _comments(ref: str, count: int = 1) -> bytes:
    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    one = f'<comment ref="{ref}" authorId="0"><text><t>note</t></text></comment>'
    return (
        f'<?xml version="1.0"?><comments xmlns="{main}"><authors><author>a</author></authors>'
        f"<commentList>{one * count}</commentList></comments>"
    ).encode()


@pytest.mark.parametrize("name", ["xl/comments1.xml", "xl/media/image9.png"])
def test_a_comment_on_a_range_is_refused_before_parsing_whatever_the_parts_name(workbook, name):
    """Hostile pass 26, finding 1: a comment over A1:CV20000 took 11 s and 600 MB (openpyxl puts a
    comment on ``ws[ref]``, every cell of a range); the part is found by relationship, whatever its
    name, so a picture's name does not pass it."""
    _rater, data = workbook
    with pytest.raises(WorkbookRefused) as refused:
        workbook_file_check(_with_part(data, name, _comments("A1:CV20000")), max_bytes=LIMIT)
    assert "comments on ranges of cells" in str(refused.value)


def test_comments_on_single_cells_are_still_a_workbook(workbook):
    _rater, data = workbook
    workbook_file_check(_with_part(data, "xl/comments1.xml", _comments("B3", count=20)), max_bytes=LIMIT)


@pytest.mark.parametrize(
    ("sheets", "per_sheet", "sqref"),
    [
        (30, 22_000, ""),  # hostile pass 27: 63 s and 670 MB through the upload page
        (8, 22_000, ""),  # 12 s and 183 MB
        (3, 0, " ".join(f"A{n}" for n in range(1, 400)) * 300),  # one rule a sheet over 120,000 ranges
    ],
)
def test_many_validation_rules_are_refused_before_parsing(sheets, per_sheet, sqref):
    from tests.hostile_files import validations_xlsx

    with pytest.raises(WorkbookRefused) as refused:
        workbook_file_check(validations_xlsx(sheets, per_sheet, sqref), max_bytes=LIMIT)
    assert "validation or formatting rules" in str(refused.value)


def test_a_few_validation_rules_are_still_a_workbook():
    from tests.hostile_files import validations_xlsx

    workbook_file_check(validations_xlsx(20, 50), max_bytes=LIMIT)  # raises nothing

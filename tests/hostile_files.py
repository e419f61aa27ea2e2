"""Hostile upload files (issue 22, finding 7), built once: deep nesting, huge numbers, huge
CSV fields, wrong encodings, zip bombs, XXE and billion laughs in xlsx parts, truncated
archives. Shared by the upload fuzz tests."""

from __future__ import annotations

import functools
import io
import random
import zipfile

DEPTH = 200_000


def deep_list() -> bytes:
    return b"[" * DEPTH + b"]" * DEPTH


def deep_object() -> bytes:
    return b'{"FS10": ' + b'{"a": ' * DEPTH + b"1" + b"}" * DEPTH + b"}"


def deep_line() -> bytes:
    return b'{"code": "FS10", "theme": ' + b"[" * DEPTH + b"]" * DEPTH + b"}\n"


def huge_number_list() -> bytes:
    return b"[" + b"1" * 5001 + b"]"


def huge_number_object() -> bytes:
    return b'{"code": ' + b"9" * 5001 + b', "theme": "t", "text": "x"}\n'


def huge_number_released() -> bytes:
    return b'{"FS10": {"theme": ' + b"9" * 5001 + b', "text": "x"}}'


def csv_huge_field() -> bytes:
    return b"username,name,email,language,roles\nr1," + b"x" * 200_000 + b",r1@example.org,en,rater\n"


def csv_huge_quoted_field() -> bytes:
    return b'username,name,email,language,roles\nr1,"' + b"y" * 140_000 + b'",r1@example.org,en,rater\n'


def utf16(text: str = "username,name,email,language,roles\n[1]\n") -> bytes:
    return text.encode("utf-16")


def latin1() -> bytes:
    return "username,name,email,language,roles\nrené,René Ç,r@example.org,en,rater\n".encode("latin-1")


def garbage() -> bytes:
    return bytes(range(256)) * 8


def nul_bytes() -> bytes:
    return b"username,name,email,language,roles\nr1,\x00\x00,r@example.org,en,rater\n"


@functools.cache
def plain_xlsx() -> bytes:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.append(["code", "theme", "text"])
    ws.append(["FS99", "theme", "text"])
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def xlsx_with_sheet(sheet_xml: bytes) -> bytes:
    """The plain workbook with its first sheet's XML replaced."""
    return _rezip({"xl/worksheets/sheet1.xml": sheet_xml})


@functools.cache
def plain_sheet_xml() -> bytes:
    return zipfile.ZipFile(io.BytesIO(plain_xlsx())).read("xl/worksheets/sheet1.xml")


def _rezip(replace: dict[str, bytes], add: dict[str, bytes] | None = None) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(plain_xlsx()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            target.writestr(info.filename, replace.get(info.filename, source.read(info.filename)))
        for name, data in (add or {}).items():
            target.writestr(name, data)
    return out.getvalue()


@functools.cache
def zip_bomb() -> bytes:
    """A valid workbook whose sheet part inflates to 100 MB of zeros (about 100 KB packed)."""
    out = io.BytesIO()
    source = zipfile.ZipFile(io.BytesIO(plain_xlsx()))
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as target:
        for info in source.infolist():
            if info.filename == "xl/worksheets/sheet1.xml":
                with target.open(info.filename, "w", force_zip64=True) as part:
                    chunk = b"0" * (1024 * 1024)
                    for _ in range(100):
                        part.write(chunk)
            else:
                target.writestr(info.filename, source.read(info.filename))
    return out.getvalue()


@functools.cache
def lying_zip_bomb() -> bytes:
    """The zip bomb with its declared sizes rewritten to look small."""
    data = bytearray(zip_bomb())
    archive = zipfile.ZipFile(io.BytesIO(bytes(data)))
    info = archive.getinfo("xl/worksheets/sheet1.xml")
    # the central directory's entry: rewrite its uncompressed size field (zip64 keeps it in extra)
    return bytes(data).replace(info.file_size.to_bytes(8, "little"), (1000).to_bytes(8, "little"))


def _sheet_rows(n_rows: int, columns: int = 8, seed: int = 7) -> bytes:
    """A worksheet's XML of ``n_rows`` rows of numbers and short texts (compresses about 6x)."""
    rng = random.Random(seed)
    head = b'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
    rows = []
    for r in range(1, n_rows + 1):
        cells = "".join(
            f'<c r="{chr(65 + c)}{r}" t="inlineStr"><is><t>{rng.randrange(10**9)}x{rng.randrange(10**6)}</t></is></c>'
            for c in range(columns)
        )
        rows.append(f'<row r="{r}">{cells}</row>')
    return head + "".join(rows).encode() + b"</sheetData></worksheet>"


@functools.cache
def wide_sheets_xlsx(sheets: int = 7, part_bytes: int = int(7.9 * 1024 * 1024)) -> bytes:
    """Issue 36, finding 3: seven sheets of 7.9 MB of XML each, every part under the old 8 MB
    limit and compressing about 6x (well under the ratio limit): the old checks passed it and
    openpyxl's full load tied up a web process for 100 s and 350 MB. About 9.6 MB packed."""
    rows = int(part_bytes / (len(_sheet_rows(1000)) / 1000))
    sheet = _sheet_rows(rows)
    while len(sheet) > part_bytes:  # row numbers grow longer further down
        rows = int(rows * 0.99)
        sheet = _sheet_rows(rows)
    return _workbook_with_sheets([sheet] * sheets)


def tall_sheet_xlsx(rows: int = 5000) -> bytes:
    """One small part (under 1 MB) with thousands of rows: refused by the streamed row count."""
    return _workbook_with_sheets([_sheet_rows(rows, columns=2)])


def many_sheets_xlsx(sheets: int = 300) -> bytes:
    return _workbook_with_sheets([plain_sheet_xml()] * sheets)


def hyperlink_range_xlsx(ref: str = "A1:CV20000") -> bytes:
    """The plain workbook with one internal hyperlink over ``ref`` (hostile pass 26: 1.6 KB that
    openpyxl turns into a cell for every cell of the range)."""
    link = f'<hyperlinks><hyperlink ref="{ref}" location="Sheet1!A1"/></hyperlinks>'.encode()
    return xlsx_with_sheet(plain_sheet_xml().replace(b"</sheetData>", b"</sheetData>" + link, 1))


def validations_xlsx(sheets: int = 30, per_sheet: int = 22_000, sqref: str = "") -> bytes:
    """Sheets of the plain workbook's size, each with ``per_sheet`` data validations on single
    cells (hostile pass 27), or one validation whose ``sqref`` lists many ranges."""
    one = '<dataValidation type="whole" sqref="{}"><formula1>5</formula1></dataValidation>'
    rules = one.format(sqref) if sqref else "".join(one.format(f"C{n % 399 + 1}") for n in range(per_sheet))
    xml = plain_sheet_xml().replace(
        b"</sheetData>", b"</sheetData><dataValidations>" + rules.encode() + b"</dataValidations>", 1
    )
    return _workbook_with_sheets([xml] * sheets)


def _workbook_with_sheets(sheet_parts: list[bytes]) -> bytes:
    """The plain workbook with these worksheets instead of its own (the workbook part names them)."""
    source = zipfile.ZipFile(io.BytesIO(plain_xlsx()))
    out = io.BytesIO()
    sheets = "".join(
        f'<sheet name="S{n}" sheetId="{n}" r:id="rId{100 + n}"/>' for n in range(1, len(sheet_parts) + 1)
    )
    rels = "".join(
        f'<Relationship Id="rId{100 + n}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet{n}.xml"/>'
        for n in range(1, len(sheet_parts) + 1)
    )
    workbook = (
        '<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
        + sheets
        + "</sheets></workbook>"
    ).encode()
    workbook_rels = (
        '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        + rels
        + "</Relationships>"
    ).encode()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            if info.filename.startswith("xl/worksheets/"):
                continue
            data = {"xl/workbook.xml": workbook, "xl/_rels/workbook.xml.rels": workbook_rels}.get(
                info.filename
            )
            target.writestr(info.filename, data if data is not None else source.read(info.filename))
        for n, part in enumerate(sheet_parts, start=1):
            target.writestr(f"xl/worksheets/sheet{n}.xml", part)
    return out.getvalue()


XXE_DOCTYPE = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>'
LAUGHS = (
    b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    + b"".join(
        b'<!ENTITY lol%d "%s">' % (n, (b"&lol%d;" % (n - 1) if n > 1 else b"&lol;") * 10)
        for n in range(1, 10)
    )
    + b"]>"
)


def _sheet_with(prolog: bytes, entity: bytes) -> bytes:
    return (
        prolog + b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
        b'<row r="1"><c r="A1" t="inlineStr"><is><t>code</t></is></c><c r="B1" t="inlineStr"><is><t>theme</t></is></c>'
        b'<c r="C1" t="inlineStr"><is><t>text</t></is></c></row>'
        b'<row r="2"><c r="A2" t="inlineStr"><is><t>FS98</t></is></c><c r="B2" t="inlineStr"><is><t>'
        + entity
        + b'</t></is></c><c r="C2" t="inlineStr"><is><t>x</t></is></c></row></sheetData></worksheet>'
    )


@functools.cache
def xxe_xlsx() -> bytes:
    return _rezip({"xl/worksheets/sheet1.xml": _sheet_with(XXE_DOCTYPE, b"&xxe;")})


@functools.cache
def laughs_xlsx() -> bytes:
    return _rezip({"xl/worksheets/sheet1.xml": _sheet_with(LAUGHS, b"&lol9;")})


@functools.cache
def xxe_workbook_part() -> bytes:
    source = zipfile.ZipFile(io.BytesIO(plain_xlsx()))
    workbook = source.read("xl/workbook.xml")
    body = workbook.split(b"?>", 1)[1] if workbook.startswith(b"<?xml") else workbook
    return _rezip({"xl/workbook.xml": XXE_DOCTYPE + body})


def truncated_zip() -> bytes:
    data = plain_xlsx()
    return data[: len(data) // 2]


def damaged_deflate() -> bytes:
    """The plain workbook with its workbook part's compressed bytes replaced by an invalid block."""
    data = bytearray(plain_xlsx())
    info = zipfile.ZipFile(io.BytesIO(bytes(data))).getinfo("xl/workbook.xml")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start : start + info.compress_size] = b"\xff" * info.compress_size
    return bytes(data)


def not_a_zip_named_xlsx() -> bytes:
    return b"PK\x03\x04" + b"\x00" * 100


HOSTILE = {
    "deep_list": deep_list,
    "deep_object": deep_object,
    "deep_line": deep_line,
    "huge_number_list": huge_number_list,
    "huge_number_object": huge_number_object,
    "huge_number_released": huge_number_released,
    "csv_huge_field": csv_huge_field,
    "csv_huge_quoted_field": csv_huge_quoted_field,
    "utf16": utf16,
    "latin1": latin1,
    "garbage": garbage,
    "nul_bytes": nul_bytes,
    "zip_bomb": zip_bomb,
    "lying_zip_bomb": lying_zip_bomb,
    "xxe_xlsx": xxe_xlsx,
    "laughs_xlsx": laughs_xlsx,
    "xxe_workbook_part": xxe_workbook_part,
    "truncated_zip": truncated_zip,
    "damaged_deflate": damaged_deflate,
    "not_a_zip_named_xlsx": not_a_zip_named_xlsx,
    "empty": lambda: b"",
}

# Valid-looking files of each kind, for the fuzz to mutate.
SCENARIOS_JSON = b'{"FS90": {"theme": "A theme", "text": "A text"}}'
SCENARIOS_JSONL = b'{"code": "FS91", "theme": "A theme", "text": "A text"}\n'
RESPONSES_JSONL = (
    b'{"research_id": "A05_FS10", "scenario": "FS10", "model": "05", "condition": "A", '
    b'"steps": ["a", "b", "c", "d", "e", "f"]}\n'
)
DATA_A = b'[["A05_FS10", ["H01", "H02"], "FS10", {"Step-1": [{"Content": "x"}]}, {"Step-1": []}]]'
INVITES_CSV = b"username,name,email,language,roles\nfuzz1,Fuzz One,fuzz1@example.org,en,rater\n"
# Fragments that have broken parsers before
FRAGMENTS = [
    b"[" * 3000,
    b"{" * 3000,
    b"9" * 5001,
    b"1e999",
    b"NaN",
    b"-Infinity",
    b"\\u0000",
    b"\\ud800",
    b"\x00",
    b'"',
    b",",
    b";",
    b"\t",
    b"\r\n",
    b"\xff\xfe",
    b"\xef\xbb\xbf",
    b"\xe9",
    b"x" * 140_000,
    b"<!DOCTYPE x [<!ENTITY e SYSTEM 'file:///etc/passwd'>]>",
    b"&e;",
    b"_x0000_",
    b'<dimension ref="A1:XFD1048576"/>',
    b'<row r="1048576"><c r="XFD1048576"><v>1</v></c></row>',
    b"=cmd|' /C calc'!A0",
]


def styles_and_strings_xlsx(*, font_bytes: int, strings: int) -> bytes:
    """Hostile pass 10 (N1): a styles part of ``font_bytes`` of fonts and a shared strings part of
    ``strings`` one- or two-digit texts; openpyxl's full read costs per entry (16 MB of each: 18 s,
    +620 MB), while both compress under the ratio limit."""
    import random

    rng = random.Random(10)
    ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
    fonts, size = [], 0
    while size < font_bytes:
        font = f'<font><b/><sz val="{rng.randint(1, 409)}"/></font>'
        fonts.append(font)
        size += len(font)
    styles = (
        f'<?xml version="1.0" encoding="UTF-8"?><styleSheet {ns}><fonts>{"".join(fonts)}</fonts></styleSheet>'
    )
    texts = "".join(f"<si><t>{rng.randint(0, 99)}</t></si>" for _ in range(strings))
    shared = f'<?xml version="1.0" encoding="UTF-8"?><sst {ns}>{texts}</sst>'
    return _rezip({"xl/styles.xml": styles.encode()}, add={"xl/sharedStrings.xml": shared.encode()})

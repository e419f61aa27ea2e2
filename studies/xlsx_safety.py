"""Refuse a hostile .xlsx file before openpyxl loads any of it (pure: no database).

An .xlsx file is a zip of XML parts. Everything is checked from the zip's directory and a
streamed, bounded read of each part, never by trusting the parser:

- not a zip / not an .xlsx (no workbook part) / too large a file;
- zip bombs: too many members, too much uncompressed data in total or per part (declared
  and actual), suspicious compression ratios;
- macros (``vbaProject.bin``, macro-enabled content types, ActiveX), external links and
  embedded objects;
- XML with a DOCTYPE or entity declarations (entity expansion, external entities);
- the size of what openpyxl would build: the number of worksheets, and each worksheet's
  rows, columns and cells, counted by streaming its XML (``defusedxml``'s iterparse, one
  row at a time) before any full load. A workbook of seven 8 MB sheets is refused at the
  first row past the limit, in a fraction of a second and without memory growth; an
  accepted one loads in bounded time and memory (``bench/hostile_upload.py``).
"""

from __future__ import annotations

import io
import posixpath
import re
import zipfile
import zlib
from dataclasses import dataclass

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import fromstring, iterparse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

_FORBIDDEN_PARTS = (
    ("vbaproject", gettext_lazy("macros")),
    ("xl/externallinks/", gettext_lazy("external links")),
    ("xl/activex/", gettext_lazy("ActiveX controls")),
    ("xl/embeddings/", gettext_lazy("embedded objects")),
    ("xl/macrosheets/", gettext_lazy("macro sheets")),
    ("xl/dialogsheets/", gettext_lazy("dialog sheets")),
)
_SHEET_PART = re.compile(r"xl/worksheets/[^/]+\.xml", re.I)
_CELL_REF = re.compile(r"([A-Z]{1,3})([0-9]{1,7})$")
RATIO_FLOOR = 1024 * 1024  # small parts may compress extremely well
_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)  # what a zip's reads bound (``read_bounded``)
MAX_RATIO = 120  # well-formed xlsx XML compresses about 5-30x
DAMAGED = _DAMAGED = (
    zipfile.BadZipFile,
    zlib.error,
    OSError,
    EOFError,
    RuntimeError,
    NotImplementedError,
    ValueError,
)


@dataclass(frozen=True)
class XlsxLimits:
    """What a kind of upload may hold; the defaults fit neither kind: each caller sets them."""

    max_bytes: int  # the file itself
    max_total: int  # every part, uncompressed
    max_part: int  # any part but a worksheet, uncompressed (shared strings, styles, ...)
    max_sheet_part: int  # one worksheet's XML, uncompressed
    max_sheets: int
    max_rows: int  # per worksheet
    max_columns: int  # per worksheet
    max_cells: int  # every worksheet together
    max_members: int = 400
    # openpyxl's full read costs per entry, not per byte (hostile pass 10: 16 MB of one-digit shared
    # strings and of fonts took 18 s and 620 MB): the styles part is small in any real workbook,
    # and a workbook holds no more distinct strings than it has cells (0: ``max_cells``)
    max_styles_part: int = 1024 * 1024
    max_shared_strings: int = 0


class XlsxRefused(Exception):
    """The file is not a workbook we accept; ``message`` says why, for the user."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _column_number(letters: str) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - 64
    return number


def _too_large(name: str) -> XlsxRefused:
    return XlsxRefused(_("A part of the workbook is too large (%(name)s).") % {"name": name})


def _directory_check(archive: zipfile.ZipFile, limits: XlsxLimits) -> list[zipfile.ZipInfo]:
    """The members, refused on what the zip's directory says about them."""
    infos = archive.infolist()
    if len(infos) > limits.max_members:
        raise XlsxRefused(_("The archive has too many parts (%(n)s) for this workbook.") % {"n": len(infos)})
    total, names = 0, set()
    for info in infos:
        name = info.filename.lower()
        names.add(name)
        if info.compress_type not in _METHODS or info.flag_bits & 0x1:
            # bzip2 and LZMA parts are unpacked whole by zipfile whatever a read asks for (hostile
            # pass 21: 5 KB became 1 GB); Excel and LibreOffice write stored or deflated parts only
            raise XlsxRefused(
                _("The workbook's parts are compressed or encrypted in a way Excel does not write.")
            )
        for marker, what in _FORBIDDEN_PARTS:
            if marker in name:
                raise XlsxRefused(
                    _(
                        "The workbook contains %(what)s, which are not accepted. Save it as a plain .xlsx workbook."
                    )
                    % {"what": what}
                )
        part_limit = limits.max_sheet_part if _SHEET_PART.fullmatch(name) else limits.max_part
        part_limit = min(part_limit, limits.max_styles_part) if name.endswith("/styles.xml") else part_limit
        if info.file_size > part_limit:
            raise _too_large(info.filename)
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise XlsxRefused(_("The archive is compressed suspiciously well (a zip bomb?)."))
        total += info.file_size
        if total > limits.max_total:
            raise XlsxRefused(_("The workbook unpacks to too much data (a zip bomb?)."))
    if "xl/workbook.xml" not in names or "[content_types].xml" not in names:
        raise XlsxRefused(_("This is not an Excel workbook (.xlsx): the workbook part is missing."))
    sheets = sum(1 for name in names if _SHEET_PART.fullmatch(name))
    if sheets > limits.max_sheets:
        raise XlsxRefused(
            _("The workbook has %(n)s sheets; at most %(limit)s are accepted.")
            % {"n": sheets, "limit": limits.max_sheets}
        )
    return infos


# a shared string's element, whatever its namespace prefix ("<si>", "<x:si>", "<é:si>")
_STRING_ENTRY = re.compile(rb"<(?:[^\s<>/:!?]+:)?si[\s/>]")
# a comment's cell: openpyxl puts each comment on ``ws[ref]``, which for a range makes every cell of
# it (a comment over A1:CV20000 took 11 s and 600 MB: hostile pass 26); Excel writes one cell
_COMMENT_REF = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?comment\b[^>]*?\sref\s*=\s*[\"']([^\"']*)[\"']")
SHEET, STRINGS, STYLES = "sheet", "strings", "styles"
# parts that are not XML: never read as text
_BINARY = (".png", ".jpeg", ".jpg", ".gif", ".bmp", ".tif", ".tiff", ".emf", ".wmf", ".bin", ".svg")


_SMALL_PART = 4 * 1024 * 1024  # the content types, the workbook part and its relationships: a few KB


def read_bounded(archive: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """A member's bytes, never more than ``limit`` unpacked whatever its directory entry says
    (a stored or deflated member: zipfile unpacks no more than a read asks for)."""
    with archive.open(name) as part:
        blob = part.read(limit + 1)
    if len(blob) > limit:
        raise _too_large(name)
    return blob


def _workbook_target(target: str) -> str:
    """The part a relationship of the workbook names, lower case, as openpyxl finds it
    (``packaging.relationship.get_dependents``: an absolute name from the root, else joined to
    xl/ and normalised; hostile pass 12: ``./data/b0.xml`` was filed under a name no part has)."""
    if target.startswith("/"):
        return posixpath.normpath(target.lstrip("/")).lower()
    return posixpath.normpath(posixpath.join("xl", target)).lower()


def _part_kinds(archive: zipfile.ZipFile) -> dict[str, str]:
    """What each part is, as openpyxl will find it: by the content types part's overrides and
    defaults, the workbook's relationships, and the usual names (hostile pass 11: a sheet or the
    shared strings under another name escaped the limits that went by names)."""
    kinds: dict[str, str] = {}
    by_type = (
        ("worksheet+xml", SHEET),
        ("chartsheet+xml", SHEET),
        ("sharedstrings+xml", STRINGS),
        ("styles+xml", STYLES),
    )
    names = [info.filename for info in archive.infolist()]
    try:
        types = fromstring(read_bounded(archive, "[Content_Types].xml", _SMALL_PART), forbid_dtd=True)
        defaults = {}
        for element in types.iter():
            tag, content = element.tag.rsplit("}", 1)[-1], (element.get("ContentType") or "").lower()
            kind = next((kind for marker, kind in by_type if marker in content), None)
            if tag == "Default" and kind:
                defaults[(element.get("Extension") or "").lower()] = kind
            elif tag == "Override" and kind:
                kinds[(element.get("PartName") or "").lstrip("/").lower()] = kind
        for name in names:
            extension = name.rsplit(".", 1)[-1].lower() if "." in name.rsplit("/", 1)[-1] else ""
            if extension in defaults:
                kinds.setdefault(name.lower(), defaults[extension])
        rels = fromstring(read_bounded(archive, "xl/_rels/workbook.xml.rels", _SMALL_PART), forbid_dtd=True)
        by_rel = (
            ("/worksheet", SHEET),
            ("/chartsheet", SHEET),
            ("/sharedstrings", STRINGS),
            ("/styles", STYLES),
        )
        for rel in rels.iter():
            kind = next((kind for end, kind in by_rel if (rel.get("Type") or "").lower().endswith(end)), None)
            target = rel.get("Target") or ""
            if kind and target:
                kinds[_workbook_target(target)] = kind
    except (KeyError, SyntaxError, DefusedXmlException, *_DAMAGED):
        pass  # no such parts, or unreadable: the names decide, and openpyxl refuses the file
    for name in names:
        lower = name.lower()
        if _SHEET_PART.fullmatch(lower):
            kinds.setdefault(lower, SHEET)
        elif lower.endswith("/sharedstrings.xml"):
            kinds.setdefault(lower, STRINGS)
        elif lower.endswith("/styles.xml"):
            kinds.setdefault(lower, STYLES)
    return kinds


def _part_check(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, limits: XlsxLimits, kind: str | None
) -> None:
    """A non-sheet part read in a bounded way: its real size (a lying directory), no DOCTYPE or
    entity declaration, a small styles part and no more shared strings than cells."""
    limit = limits.max_styles_part if kind == STYLES else limits.max_part
    with archive.open(info) as part:
        blob = part.read(limit + 1)
    if len(blob) > limit:
        raise _too_large(info.filename)
    if kind == STRINGS:
        most = limits.max_shared_strings or limits.max_cells
        if sum(1 for _entry in _STRING_ENTRY.finditer(blob)) > most:
            raise XlsxRefused(
                _(
                    "The workbook holds more than %(n)s different texts: far more than this kind of file holds."
                )
                % {"n": most}
            )
    _comments_check(blob, limits)
    head = blob.upper()
    if b"<!DOCTYPE" in head or b"<!ENTITY" in head:
        raise XlsxRefused(_("The workbook contains XML declarations that are not accepted."))
    if info.filename == "[Content_Types].xml" and b"MACROENABLED" in head:
        raise XlsxRefused(_("Macro-enabled workbooks (.xlsm) are not accepted. Save it as .xlsx."))


def _comments_check(blob: bytes, limits: XlsxLimits) -> None:
    """No comment on a range of cells, and no more comments than cells (openpyxl finds the comments
    part through the sheet's relationships, whatever its name: a picture's name included)."""
    comments = [match[1] for match in _COMMENT_REF.finditer(blob)]
    if any(b":" in ref for ref in comments) or len(comments) > limits.max_cells:
        raise XlsxRefused(
            _("The workbook has comments on ranges of cells or too many comments: it is not accepted.")
        )


class _Bounded(io.RawIOBase):
    """A part's stream that refuses to give more than ``limit`` bytes (a lying directory)."""

    def __init__(self, stream, limit: int, name: str):
        self.stream, self.left, self.name = stream, limit, name

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.stream.read(min(len(buffer), self.left + 1))
        if len(data) > self.left:
            raise _too_large(self.name)
        self.left -= len(data)
        buffer[: len(data)] = data
        return len(data)


def _sheet_titles(archive: zipfile.ZipFile) -> dict[str, str]:
    """Worksheet part -> the sheet's name as Excel shows it (the workbook part and its
    relationships, both small and already checked); empty when they cannot be read."""
    try:
        workbook = fromstring(read_bounded(archive, "xl/workbook.xml", _SMALL_PART), forbid_dtd=True)
        rels = fromstring(read_bounded(archive, "xl/_rels/workbook.xml.rels", _SMALL_PART), forbid_dtd=True)
    except (KeyError, SyntaxError, DefusedXmlException, *_DAMAGED):
        return {}
    targets = {rel.get("Id"): _workbook_target(rel.get("Target") or "") for rel in rels}
    titles = {}
    for sheet in workbook.iter():
        if sheet.tag.rsplit("}", 1)[-1] == "sheet":
            rid = next((value for key, value in sheet.attrib.items() if key.endswith("}id")), None)
            if rid in targets:
                titles[targets[rid]] = sheet.get("name") or ""
    return titles


def _sheet_check(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, limits: XlsxLimits, cells: int, title: str
) -> int:
    """Stream one worksheet's XML, a row at a time: refused at the first row, column or cell
    past the limits. Returns the cells counted so far (all sheets)."""
    rows = 0
    with archive.open(info) as raw:
        stream = io.BufferedReader(_Bounded(raw, limits.max_sheet_part, info.filename))
        for _event, element in iterparse(stream, events=("end",), forbid_dtd=True):
            tag = element.tag.rsplit("}", 1)[-1]
            if tag == "c":
                cells += 1
                found = _CELL_REF.match(element.get("r") or "")
                column = _column_number(found[1]) if found else 0
                if column > limits.max_columns or (found and int(found[2]) > limits.max_rows):
                    raise _sheet_too_large(title, limits)
                if cells > limits.max_cells:
                    raise XlsxRefused(
                        _("The workbook has more than %(n)s cells: far more than this kind of file holds.")
                        % {"n": limits.max_cells}
                    )
            elif tag in ("mergeCell", "hyperlink"):
                # openpyxl makes an object for every cell a merged range or a hyperlink's range
                # covers (a 1.6 KB file of one range over a million cells took 10 s and 330 MB:
                # hostile pass 13; a hyperlink over A1:CV20000, 55 s and 1.1 GB: pass 26)
                cells += _merged_area(element.get("ref") or "", title, limits) - (tag == "mergeCell")
                if cells > limits.max_cells:
                    raise XlsxRefused(
                        _("The workbook has more than %(n)s cells: far more than this kind of file holds.")
                        % {"n": limits.max_cells}
                    )
            elif tag in ("dataValidation", "conditionalFormatting", "cfRule"):
                # openpyxl builds an object for each, and one for each range a sqref lists (hostile
                # pass 27: 22,000 validations a sheet in 30 sheets took 63 s and 670 MB): each costs
                # what a few cells cost, against the same budget
                cells += RULE_COST + len((element.get("sqref") or "").split())
                if cells > limits.max_cells:
                    raise XlsxRefused(
                        _(
                            "The workbook has more validation or formatting rules than this kind of file holds."
                        )
                    )
            elif tag == "row":
                rows += 1
                number = element.get("r") or ""
                if rows > limits.max_rows or (number.isdigit() and int(number) > limits.max_rows):
                    raise _sheet_too_large(title, limits)
                element.clear()  # the row's cells are counted: keep memory flat
    return cells


# what a validation or formatting rule costs openpyxl, in cells (measured: 50 us and about 1 KB a
# validation, 12 us a range of its sqref, 28 us a loaded cell)
RULE_COST = 4
_RANGE_END = re.compile(r"\$?([A-Za-z]{1,3})\$?([0-9]{1,7})")  # a corner written in full: "A1", "$B$2"


def _merged_area(ref: str, title: str, limits: XlsxLimits) -> int:
    """The cells a merged range or a hyperlink covers ("A1:CV10000"; openpyxl is not loaded in web
    processes); refused past the sheet's rows or columns, as a whole row or column, or unreadable."""
    corners = [_RANGE_END.fullmatch(end.strip()) for end in ref.split(":")]
    if not 1 <= len(corners) <= 2 or not all(corners):
        raise XlsxRefused(_("Sheet %(sheet)s has a cell range that cannot be read.") % {"sheet": title})
    columns = [_column_number(c[1].upper()) for c in corners if c]
    rows = [int(c[2]) for c in corners if c]
    if max(columns) > limits.max_columns or max(rows) > limits.max_rows:
        raise _sheet_too_large(title, limits)
    return (max(columns) - min(columns) + 1) * (max(rows) - min(rows) + 1)


def _sheet_too_large(title: str, limits: XlsxLimits) -> XlsxRefused:
    return XlsxRefused(
        _(
            "Sheet %(sheet)s is far larger than this kind of file holds (more than %(rows)s rows or %(cols)s columns)."
        )
        % {"sheet": title, "rows": limits.max_rows, "cols": limits.max_columns}
    )


def _kind_check(infos: list[zipfile.ZipInfo], kinds: dict[str, str], limits: XlsxLimits) -> None:
    """The limits of each kind of part, as the zip's directory gives their sizes."""
    sheets = 0
    for info in infos:
        kind = kinds.get(info.filename.lower())
        limit = {SHEET: limits.max_sheet_part, STYLES: limits.max_styles_part}.get(
            kind or "", limits.max_part
        )
        if info.file_size > limit:
            raise _too_large(info.filename)
        sheets += kind == SHEET
    if sheets > limits.max_sheets:
        raise XlsxRefused(
            _("The workbook has %(n)s sheets; at most %(limit)s are accepted.")
            % {"n": sheets, "limit": limits.max_sheets}
        )


def xlsx_check(data: bytes, limits: XlsxLimits) -> None:
    """Raise :class:`XlsxRefused` unless ``data`` is a plain .xlsx file within ``limits``."""
    if len(data) > limits.max_bytes:
        raise XlsxRefused(
            _("The file is too large (%(size)s bytes; the limit is %(limit)s bytes).")
            % {"size": len(data), "limit": limits.max_bytes}
        )
    if not data or not zipfile.is_zipfile(io.BytesIO(data)):
        raise XlsxRefused(_("This is not an Excel workbook (.xlsx): the file is not a zip archive."))
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = _directory_check(archive, limits)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as exc:
        raise XlsxRefused(_("This is not a readable Excel workbook (.xlsx).")) from exc
    cells = 0
    titles = _sheet_titles(archive)
    kinds = _part_kinds(archive)
    _kind_check(infos, kinds, limits)
    for info in infos:
        kind = kinds.get(info.filename.lower())
        if info.filename.endswith("/"):
            continue
        try:
            if kind is None and info.filename.lower().endswith(_BINARY):
                # a picture is not read as text; a part openpyxl reads as XML is, whatever its name
                _comments_check(read_bounded(archive, info.filename, limits.max_part), limits)
            elif kind == SHEET:
                title = titles.get(info.filename.lower()) or info.filename.rsplit("/", 1)[-1].removesuffix(
                    ".xml"
                )
                cells = _sheet_check(archive, info, limits, cells, title)
            else:
                _part_check(archive, info, limits, kinds.get(info.filename.lower()))
        except XlsxRefused:
            raise
        except DefusedXmlException as exc:
            raise XlsxRefused(_("The workbook contains XML declarations that are not accepted.")) from exc
        except SyntaxError as exc:  # ParseError: not well-formed XML
            raise XlsxRefused(_("The archive is damaged (%(name)s).") % {"name": info.filename}) from exc
        except _DAMAGED as exc:
            raise XlsxRefused(_("The archive is damaged (%(name)s).") % {"name": info.filename}) from exc

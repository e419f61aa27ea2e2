"""Refuse hostile workbook files before openpyxl parses them.

An .xlsx file is a zip of XML parts. Checked from the zip's directory and a
bounded read of each part, never by trusting the parser:

- not a zip / not an .xlsx (no workbook part) / too large
- zip bombs: too many members, too much uncompressed data in total or per part,
  suspicious compression ratios
- macros (``vbaProject.bin``, macro-enabled content types, ActiveX),
  external links and embedded objects
- XML with a DOCTYPE or entity declarations (entity expansion, external entities)
- worksheets too large for a scoring workbook
"""

from __future__ import annotations

import io
import zipfile
import zlib

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

MAX_MEMBERS = 400
MAX_TOTAL_UNCOMPRESSED = 60 * 1024 * 1024
MAX_MEMBER_UNCOMPRESSED = 8 * 1024 * 1024
MAX_RATIO = 120  # well-formed xlsx XML compresses about 5-30x
RATIO_FLOOR = 1024 * 1024  # small parts may compress extremely well
MAX_ROWS = 400
MAX_COLUMNS = 40

_FORBIDDEN_PARTS = (
    ("vbaproject", gettext_lazy("macros")),
    ("xl/externallinks/", gettext_lazy("external links")),
    ("xl/activex/", gettext_lazy("ActiveX controls")),
    ("xl/embeddings/", gettext_lazy("embedded objects")),
    ("xl/macrosheets/", gettext_lazy("macro sheets")),
    ("xl/dialogsheets/", gettext_lazy("dialog sheets")),
)


class WorkbookRefused(Exception):
    """The file is not a workbook we accept; ``message`` says why, for the user."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def workbook_file_check(data: bytes, *, max_bytes: int) -> None:
    """Raise WorkbookRefused unless ``data`` looks like a plain, bounded .xlsx file."""
    if len(data) > max_bytes:
        raise WorkbookRefused(
            _("The file is too large (%(size)s bytes; the limit is %(limit)s bytes).")
            % {"size": len(data), "limit": max_bytes}
        )
    if not data or not zipfile.is_zipfile(io.BytesIO(data)):
        raise WorkbookRefused(_("This is not an Excel workbook (.xlsx): the file is not a zip archive."))
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as exc:
        raise WorkbookRefused(_("This is not a readable Excel workbook (.xlsx).")) from exc
    if len(infos) > MAX_MEMBERS:
        raise WorkbookRefused(
            _("The archive has too many parts (%(n)s) for a scoring workbook.") % {"n": len(infos)}
        )
    total = 0
    names = set()
    for info in infos:
        name = info.filename.lower()
        names.add(name)
        for marker, what in _FORBIDDEN_PARTS:
            if marker in name:
                raise WorkbookRefused(
                    _(
                        "The workbook contains %(what)s, which are not accepted. Save it as a plain .xlsx workbook."
                    )
                    % {"what": what}
                )
        if info.file_size > MAX_MEMBER_UNCOMPRESSED:
            raise WorkbookRefused(
                _("A part of the workbook is too large (%(name)s).") % {"name": info.filename}
            )
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise WorkbookRefused(_("The archive is compressed suspiciously well (a zip bomb?)."))
        total += info.file_size
        if total > MAX_TOTAL_UNCOMPRESSED:
            raise WorkbookRefused(_("The workbook unpacks to too much data (a zip bomb?)."))
    if "xl/workbook.xml" not in names or "[content_types].xml" not in names:
        raise WorkbookRefused(_("This is not an Excel workbook (.xlsx): the workbook part is missing."))
    for info in infos:
        if not info.filename.lower().endswith((".xml", ".rels", ".vml")):
            continue
        try:
            with archive.open(info) as part:
                blob = part.read(MAX_MEMBER_UNCOMPRESSED + 1)
        except (
            zipfile.BadZipFile,
            zlib.error,
            OSError,
            EOFError,
            RuntimeError,
            NotImplementedError,
            ValueError,
        ) as exc:
            raise WorkbookRefused(_("The archive is damaged (%(name)s).") % {"name": info.filename}) from exc
        if len(blob) > MAX_MEMBER_UNCOMPRESSED:
            raise WorkbookRefused(
                _("A part of the workbook is too large (%(name)s).") % {"name": info.filename}
            )
        head = blob.upper()
        if b"<!DOCTYPE" in head or b"<!ENTITY" in head:
            raise WorkbookRefused(_("The workbook contains XML declarations that are not accepted."))
        if info.filename == "[Content_Types].xml" and b"MACROENABLED" in head:
            raise WorkbookRefused(_("Macro-enabled workbooks (.xlsm) are not accepted. Save it as .xlsx."))


def worksheet_size_check(ws) -> None:
    """Refuse sheets far larger than a scoring sheet (after loading, before reading)."""
    if ws.max_row > MAX_ROWS or ws.max_column > MAX_COLUMNS:
        raise WorkbookRefused(
            _("Sheet %(sheet)s is far larger than a scoring sheet (%(rows)s rows, %(cols)s columns).")
            % {"sheet": ws.title, "rows": ws.max_row, "cols": ws.max_column}
        )

"""Hostile archives at the release layout's import (hostile pass 21): parts compressed with bzip2 or
LZMA (zipfile unpacks them whole, whatever a read asks for), encrypted or damaged members, a zip that
unpacks to too much; each is a named problem, never a 500, and is read no further than its bounds."""

from __future__ import annotations

import io
import zipfile

import pytest
from openpyxl import Workbook

from scoring.workbooks import release_layout
from scoring.workbooks.release_layout import release_files_expand
from studies.xlsx_safety import XlsxLimits, XlsxRefused, xlsx_check

LIMITS = XlsxLimits(
    max_bytes=2**20, max_total=2**24, max_part=2**22, max_sheet_part=2**22,
    max_sheets=10, max_rows=500, max_columns=50, max_cells=10**5,
)  # fmt: skip


def _workbook() -> bytes:
    book = Workbook()
    book.active.title = "A05_FS10"
    book.active["W19"] = 4
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _recompressed(data: bytes, method: int) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w", compression=method) as target:
        for info in source.infolist():
            target.writestr(info.filename, source.read(info))
    return out.getvalue()


@pytest.mark.parametrize("method", [zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
def test_a_workbook_compressed_as_excel_never_does_is_refused(method):
    xlsx_check(_workbook(), LIMITS)  # the same workbook, deflated, is accepted
    with pytest.raises(XlsxRefused, match="compressed or encrypted in a way Excel does not write"):
        xlsx_check(_recompressed(_workbook(), method), LIMITS)


def _zip_of(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def test_damaged_and_odd_zips_are_named_problems():
    good = _zip_of({"H01_FS10.xlsx": _workbook()})
    found, problems = release_files_expand([("good.zip", good)])
    assert [name for name, _data in found] == ["H01_FS10.xlsx"] and problems == []

    bzip = _zip_of({"H01_FS10.xlsx": _workbook()}, zipfile.ZIP_BZIP2)
    encrypted = bytearray(good)
    for marker in (b"PK\x03\x04", b"PK\x01\x02"):  # the encryption flag in both headers
        at = encrypted.find(marker)
        flags = at + (6 if marker == b"PK\x03\x04" else 8)
        encrypted[flags] |= 0x1
    damaged = bytearray(good)
    start = damaged.find(b"H01_FS10.xlsx") + len("H01_FS10.xlsx")
    damaged[start + 10 : start + 60] = b"\xff" * 50  # inside the deflated data
    found, problems = release_files_expand(
        [("bzip.zip", bzip), ("encrypted.zip", bytes(encrypted)), ("damaged.zip", bytes(damaged))]
    )
    assert found == []
    assert problems[0] == "H01_FS10.xlsx: compressed or encrypted in a way this import does not read"
    assert problems[1] == "H01_FS10.xlsx: compressed or encrypted in a way this import does not read"
    assert problems[2].startswith("damaged.zip: not a readable zip file"), problems


def test_a_zip_that_unpacks_to_too_much_stops_at_its_bound(monkeypatch):
    monkeypatch.setattr(release_layout, "MAX_UNPACKED", 3 * len(_workbook()))
    members = {f"H0{n}_FS10.xlsx": _workbook() for n in range(1, 6)}
    found, problems = release_files_expand([("many.zip", _zip_of(members))])
    assert len(found) == 3 and problems == ["many.zip: unpacks to more than 0 MB"]

"""A workbook saved by LibreOffice Calc (headless), as a rater or a lab would save it."""

import shutil
import subprocess
from pathlib import Path

SOFFICE = shutil.which("soffice") or "/usr/bin/soffice"


def through_libreoffice(data: bytes, tmp_path: Path, name: str = "filled.xlsx") -> Path:
    """Open ``data`` in Calc and save it as .xlsx again; the path of Calc's file."""
    source = tmp_path / name
    source.write_bytes(data)
    out = tmp_path / "out"
    subprocess.run(
        [SOFFICE, "--headless", "--norestore", f"-env:UserInstallation=file://{tmp_path / 'profile'}",
         "--convert-to", "xlsx:Calc MS Excel 2007 XML", "--outdir", str(out), str(source)],
        check=True, capture_output=True, timeout=240,
    )  # fmt: skip
    return out / name

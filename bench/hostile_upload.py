"""Benchmark: what a hostile workbook upload costs the web process (issue 36, finding 3).

Each case runs in a fresh Python process (``--case``), so that its resident memory starts
from the same place: the process imports Django and the workbook modules, builds the file,
then times ``workbook_import`` (the upload page's service: the pre-parse check, then
openpyxl's load) and reads the growth of its peak resident memory (``VmHWM`` after resetting
it, Linux) across the call. No database is touched: a refused file stops before any query,
and the accepted one is imported for an unknown rater (refused after the load).

Cases:
- ``issue``: the issue's file, seven sheets of 7.9 MB of XML (refused from the zip's directory);
- ``tall``: one sheet under 1 MB with 5,000 rows (refused while its XML is streamed);
- ``cells``: 256 sheets of 2,000 cells, every part small (refused at the 256,000th cell);
- ``largest``: about the largest workbook accepted: 256 sheets the size of a response sheet (89
  rows x 8 columns, every cell filled: 182,272 cells), which openpyxl loads;
- ``issue-before``: the issue's file through openpyxl's full load alone, as the code before did
  (stopped after ``--timeout`` seconds);
- ``hyperlink``: hostile pass 26's file, one sheet with a hyperlink over A1:CV20000 (1.6 KB);
- ``hyperlink-before``: the same through openpyxl's full load alone;
- ``rules``: hostile pass 27's file, 30 sheets of 22,000 data validations each (3.6 MB);
- ``rules-largest``: about the most validations accepted, 30 sheets of 1,500, which openpyxl loads.

Run:  .venv/bin/python bench/hostile_upload.py            (every case, one process each)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = (
    "issue",
    "tall",
    "cells",
    "largest",
    "issue-before",
    "hyperlink",
    "hyperlink-before",
    "rules",
    "rules-largest",
)


def _rss_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _peak_reset() -> None:
    Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current RSS


def _file(case: str) -> bytes:
    from tests import hostile_files

    if case in ("issue", "issue-before"):
        return hostile_files.wide_sheets_xlsx()
    if case in ("hyperlink", "hyperlink-before"):
        return hostile_files.hyperlink_range_xlsx()
    if case == "rules":
        return hostile_files.validations_xlsx(30, 22_000)
    if case == "rules-largest":
        return hostile_files.validations_xlsx(30, 1_500)
    if case == "tall":
        return hostile_files.tall_sheet_xlsx()
    if case == "cells":
        return hostile_files._workbook_with_sheets([hostile_files._sheet_rows(250, columns=8)] * 256)
    # as many sheets as accepted, each the size of a response sheet (89 rows x 8 columns, all filled)
    return hostile_files._workbook_with_sheets([hostile_files._sheet_rows(89, columns=8)] * 256)


def run_case(case: str, timeout: float) -> dict:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "teamllm_web.settings.test")
    import django

    django.setup()
    from openpyxl import load_workbook  # noqa: F401  (imported before the measure)

    from scoring.services import workbooks  # noqa: F401

    data = _file(case)
    before = _rss_kb("VmRSS")
    _peak_reset()
    started = time.perf_counter()
    if case.endswith("-before"):
        import io
        import signal

        signal.alarm(int(timeout))
        try:
            load_workbook(io.BytesIO(data))
            outcome = "loaded"
        except Exception as exc:  # the alarm
            outcome = f"stopped: {type(exc).__name__}"
    else:
        from scoring.services.workbooks import workbook_import

        result = workbook_import(data=data, actor=None, rater=None)
        outcome = result.problems[0].message if result.problems else "accepted"
    seconds = time.perf_counter() - started
    return {
        "case": case,
        "file_mb": round(len(data) / 2**20, 1),
        "seconds": round(seconds, 3),
        "rss_growth_mb": round((_rss_kb("VmHWM") - before) / 1024, 1),
        "outcome": outcome[:120],
    }


class _Alarm(Exception):
    pass


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--case", choices=CASES)
    parser.add_argument("--timeout", type=float, default=150)
    args = parser.parse_args()
    if args.case:
        import signal

        def alarm(*_args):
            raise _Alarm

        signal.signal(signal.SIGALRM, alarm)
        print(json.dumps(run_case(args.case, args.timeout)))
        return
    for case in CASES:
        out = subprocess.run(
            [sys.executable, __file__, "--case", case, "--timeout", str(args.timeout)],
            capture_output=True,
            text=True,
            check=False,
        )
        line = next((x for x in out.stdout.splitlines() if x.startswith("{")), None)
        print(line or f'{{"case": "{case}", "error": {json.dumps(out.stderr[-300:])}}}')


if __name__ == "__main__":
    main()

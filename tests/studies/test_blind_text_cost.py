"""Hostile texts cannot tie up the process that checks them (issue 36, pass 5, finding B1): a
line of 24,000 stars took three minutes in the blind-text check, its marks' runs backtracking
quadratically. The check now takes time linear in the text; here texts of 200,000 characters of
every mark that overlaps are checked in a child process that must finish inside a generous
guard (it takes about a second; the old patterns needed hours, holding the GIL, which is why
the guard is a process and not a thread)."""

import json
import subprocess
import sys
from pathlib import Path

from tests.workers import child_env

ROOT = Path(__file__).resolve().parents[2]
UNITS = ["*", "* ", "_", "- ", "> ", "1. ", "<b>", "(", "`", "|", "# "]
SCRIPT = """
import json, sys, django
django.setup()
from studies.blind_text import BlindTerm, blind_terms_found
terms = [BlindTerm("Plant", "role"), BlindTerm("Creative Professional", "profile"),
         BlindTerm("Multi-Agent Debate", "strategy"), BlindTerm("Kimi", "model")]
found = []
for unit in json.loads(sys.argv[1]):
    text = "Opening line\\n" + unit * (200_000 // len(unit)) + "\\nI am Kimi."
    found.append(blind_terms_found(["", "", "", "", "", text], terms))
print(json.dumps(found))
"""
GUARD_SECONDS = 120


def test_long_runs_of_marks_are_checked_in_linear_time_and_the_name_is_still_found():
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(UNITS)],
        cwd=ROOT,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=GUARD_SECONDS,  # raises TimeoutExpired (the test fails) if the check backtracks again
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [{"6": ["Kimi"]}] * len(UNITS)

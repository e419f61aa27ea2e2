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
    assert _found(SCRIPT, UNITS) == [{"6": ["Kimi"]}] * len(UNITS)


# hostile pass 8 (finding 2): a megabyte of these took 11-80 s against the demo's catalogue
# (a maker's context scanned after every "my", a long word backtracked in the digits-for-letters
# reading); now a term's patterns run only near its word, and each word is read once
HOSTILE_8 = ["lorem ipsum dolor sit amet ", "my ", "[", "[a·", "an AI assistant ", "我", "我是", "，作为",
             "Google ", "the plant ", "a1b2 "]  # fmt: skip
SCRIPT_8 = """
import json, sys, django
django.setup()
from generation.strategies import ROLE_NAMES_ZH
from studies.blind_text import BlindTerm, blind_terms_found
from studies.selectors import _MAKERS
terms = ([BlindTerm(m, "maker") for m in _MAKERS]
         + [BlindTerm(n, "role") for names in ROLE_NAMES_ZH.values() for n in names]
         + [BlindTerm(r, "role") for r in ("Plant", "Implementer", "Monitor Evaluator", "Debater A")]
         + [BlindTerm(m, "model") for m in ("Claude", "Gemini", "Kimi", "gpt-4o", "stub")]
         + [BlindTerm("TeamLLM", "strategy"), BlindTerm("single", "condition"), BlindTerm("FS10", "research_id")])
found = []
for unit in json.loads(sys.argv[1]):
    text = unit * (1_000_000 // len(unit)) + "\\nI am Kimi, and Google trained me."
    found.append(blind_terms_found([text], terms))
print(json.dumps(found))
"""


def test_a_megabyte_of_hostile_text_is_checked_in_bounded_time_and_names_are_still_found():
    assert _found(SCRIPT_8, HOSTILE_8) == [{"1": ["Kimi", "Google"]}] * len(HOSTILE_8)


# hostile pass 9 (finding F1): a text made of the catalogue's own terms put every term's windows
# over the whole text, and each term ran its own patterns (18-30 s a megabyte); now a recipe's
# terms are looked for together, one pattern per context
SCRIPT_9 = SCRIPT_8.replace(
    "for unit in json.loads(sys.argv[1]):",
    "for unit in [' '.join(t.text for t in terms) + ' as the plant, our moderator said; 我是执行者。\\n']:",
)


def test_a_megabyte_of_the_catalogues_own_terms_is_checked_in_bounded_time():
    found = _found(SCRIPT_9, [])[0]["1"]
    assert {"Kimi", "Google", "Plant", "Monitor Evaluator", "TeamLLM", "执行者", "辩手A"} <= set(found)


def _found(script: str, units: list[str]) -> list:
    """What the check found in each text, checked in a child process inside a generous guard."""
    result = subprocess.run(
        [sys.executable, "-c", script, json.dumps(units)],
        cwd=ROOT,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=GUARD_SECONDS,  # raises TimeoutExpired (the test fails) if the check backtracks again
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])

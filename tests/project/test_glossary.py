"""The Chinese catalogue speaks one vocabulary (docs/glossary.md): the translations a
glossary row says never to use do not come back, and the menu's "Research" does not read
as "Studies" (issue 26: both were 研究, and the back link "← 研究" went elsewhere)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PO = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"


def _entries() -> dict[str, str]:
    """msgid -> msgstr (the first form of plurals), continuation lines joined."""
    entries = {}
    for block in PO.read_text(encoding="utf-8").split("\n\n"):
        found = {}
        key = None
        for line in block.splitlines():
            m = re.match(r'^(msgid|msgstr|msgstr\[0\]) "(.*)"$', line)
            if m:
                key = "msgstr" if m[1].startswith("msgstr") else m[1]
                found.setdefault(key, "")
                found[key] += m[2]
            elif line.startswith('"') and key:
                found[key] += line[1:-1]
            else:
                key = None if not line.startswith('"') else key
        if found.get("msgid"):
            entries[found["msgid"]] = found.get("msgstr", "")
    return entries


def _glossary() -> list[tuple[str, str, list[str]]]:
    rows = []
    for line in (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0] not in ("English", "---"):
            never = [n.strip() for n in cells[2].split(",") if n.strip()]
            rows.append((cells[0], cells[1], never))
    return rows


def test_no_translation_the_glossary_forbids_is_used():
    entries = _entries()
    forbidden = {n for _, _, never in _glossary() for n in never if n != "研究"}
    assert forbidden, "the glossary lists what never to use"
    offending = {mid: mstr for mid, mstr in entries.items() if any(n in mstr for n in forbidden)}
    assert not offending, offending


def test_research_and_studies_read_differently():
    entries = _entries()
    assert entries["Research"] == "研究结果"
    assert entries["Studies"] != entries["Research"] and entries["Study"] != entries["Research"]


def test_every_judge_string_says_评委():
    entries = _entries()
    # "judge" the noun; a placeholder such as %(judge)s or the verb ("judge them") aside
    noun = re.compile(r"\bjudges?\b(?! them)", re.I)
    judge = {
        mid: mstr for mid, mstr in entries.items() if mstr and noun.search(re.sub(r"%\(\w+\)s", "", mid))
    }
    assert judge
    missing = {mid: mstr for mid, mstr in judge.items() if "评委" not in mstr}
    assert not missing, missing

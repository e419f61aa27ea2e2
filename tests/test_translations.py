"""The committed Simplified Chinese catalogue: complete, and compiled from the .po."""

import ast
import gettext
import re
from pathlib import Path

LOCALE = Path(__file__).resolve().parent.parent / "locale" / "zh_Hans" / "LC_MESSAGES"


def _po_entries():
    text = (LOCALE / "django.po").read_text(encoding="utf-8")
    for block in text.split("\n\n")[1:]:
        assert "#, fuzzy" not in block, block
        body = "\n".join(line for line in block.splitlines() if not line.startswith("#"))
        if not body.strip():
            continue
        msgid = "".join(re.findall(r'"(.*)"', re.search(r'msgid ((?:".*"\n?)+)', body).group(1)))
        strs = re.findall(r'msgstr(?:\[\d\])? ((?:".*"\n?)+)', body)
        yield msgid, ["".join(re.findall(r'"(.*)"', s)) for s in strs], "msgid_plural" in body


def _unescape(s: str) -> str:
    return ast.literal_eval('"' + s + '"')  # .po strings use C escapes (\\n, \\", \\\\)


def test_every_message_has_a_chinese_translation_with_the_same_placeholders():
    entries = list(_po_entries())
    assert len(entries) > 300
    for msgid, msgstrs, _ in entries:
        assert msgstrs and all(msgstrs), f"untranslated: {msgid!r}"
        for msgstr in msgstrs:
            assert sorted(re.findall(r"%\(\w+\)[sdr]", msgid)) == sorted(
                re.findall(r"%\(\w+\)[sdr]", msgstr)
            ), msgid


def test_the_compiled_catalogue_matches_the_po_file():
    with open(LOCALE / "django.mo", "rb") as handle:
        catalogue = gettext.GNUTranslations(handle)
    for msgid, msgstrs, plural in _po_entries():
        if plural:
            continue
        assert catalogue.gettext(_unescape(msgid)) == _unescape(msgstrs[0]), msgid

"""Text as a reader sees it, for checks that look for a name in it (the blind-text check, the
redaction of keys). Pure.

A writer can hide a name from a plain search and not from a reader: full-width or styled letters
(``Ｍｏｄｅｒａｔｏｒ``, ``ᴘʟᴀɴᴛ``), invisible characters inside it (soft hyphens, zero-width
spaces, direction marks, variation selectors, Hangul fillers), letters of another script that
look Latin (Cyrillic ``Е``, Greek ``Ο``), accents (``Çlaudé``, also as combining marks), or letters
spaced out (``P l a n t``, ``G.P.T``, ``K-i-m-i``, ``C*l*a*u*d*e``, ``G  P  T``), or Chinese in its
traditional characters (``作為執行者`` for ``作为执行者``).
:func:`reader_form` undoes all of these and says where each character came from.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Protocol

# Not of category Cf, yet shown as nothing: the combining grapheme joiner, Hangul fillers,
# Mongolian free variation selectors, spaces thinner than a letter, the Braille blank.
_BLANK = {
    0x034F,
    0x115F,
    0x1160,
    0x3164,
    0xFFA0,
    0x180B,
    0x180C,
    0x180D,
    0x180F,
    0x2009,
    0x200A,
    0x202F,
    0x2800,
}
# Scripts whose letters are never read as Latin (skipped: most of a Chinese text).
_OWN_SCRIPTS = ("CJK", "HANGUL", "HIRAGANA", "KATAKANA", "BOPOMOFO", "IDEOGRAPHIC")


def invisible(char: str) -> bool:
    """Shown as nothing (or as less than a space) inside a word."""
    code = ord(char)
    return (
        unicodedata.category(char) in ("Cf", "Mn")  # Mn: a combining accent ("e" + U+0301)
        or code in _BLANK
        or 0xFE00 <= code <= 0xFE0F
        or 0xE0100 <= code <= 0xE01EF
    )


class _Converter(Protocol):
    def convert(self, text: str) -> str: ...


@functools.lru_cache(maxsize=1)
def _traditional_to_simplified() -> _Converter:
    import opencc  # OpenCC's character tables load on first use

    converter: _Converter = opencc.OpenCC("t2s")
    return converter


@functools.lru_cache(maxsize=16384)
def simplified(char: str) -> str:
    """A Chinese character in its simplified form (``為`` → ``为``), else ``char``: OpenCC's table
    of characters, one for one, so that every character keeps its place in the text."""
    if not 0x3400 <= ord(char) <= 0x9FFF and not 0xF900 <= ord(char) <= 0xFAFF:
        return char
    converted = _traditional_to_simplified().convert(char)
    return converted if len(converted) == 1 else char


_HAN = re.compile("[\u3400-\u9fff\uf900-\ufaff]")


def _simplified_text(text: str) -> str:
    """``text`` with its traditional Chinese characters simplified, each in its place: OpenCC on
    the whole text at once (a character at a time costs twice the check on a Chinese text), or
    character by character where a phrase of its table would change the text's length."""
    if not _HAN.search(text):
        return text
    converted = _traditional_to_simplified().convert(text)
    return converted if len(converted) == len(text) else "".join(simplified(char) for char in text)


_LATIN_BOXED = re.compile(
    r"(?:NEGATIVE )?(?:SQUARED|CIRCLED) LATIN CAPITAL LETTER ([A-Z])|REGIONAL INDICATOR SYMBOL LETTER ([A-Z])"
)
_LATIN_NAMED = re.compile(
    r"LATIN (CAPITAL |SMALL )?LETTER (?:SMALL CAPITAL |DOTLESS )?([A-Z])(?: WITH [A-Z ]+)?"
)


@functools.lru_cache(maxsize=8192)
def latin_look_alike(char: str) -> str:
    """The Latin letter ``char`` looks like (Cyrillic ``Е``, small capital ``ᴘ``), else ``char``:
    the Unicode confusables data of the ``confusable_homoglyphs`` package."""
    name = unicodedata.name(char, "")
    boxed = _LATIN_BOXED.fullmatch(name)
    if boxed:  # "🅲🅻🅰🆄🅳🅴", "🇨🇱": symbols NFKC leaves as they are (hostile pass 22)
        return boxed[1] or boxed[2]
    if char.isascii() or not char.isalpha() or name.startswith(_OWN_SCRIPTS):
        return char
    base = unicodedata.normalize("NFD", char)[0]
    if name.startswith("LATIN") and base.isascii():  # an accented Latin letter: "é", "Ç"
        return base
    # "ᴘʟᴀɴᴛ", "Kımı", "ⱥ": Unicode names the Latin letter they are written for; the confusables
    # data maps none of them
    letter = _LATIN_NAMED.fullmatch(name)
    if letter:
        return letter[2] if letter[1] == "CAPITAL " else letter[2].lower()
    from confusable_homoglyphs import confusables  # its data loads on first use

    found = confusables.is_confusable(char, greedy=True, preferred_aliases=["latin"])
    for entry in found or []:
        for glyph in entry["homoglyphs"]:
            if glyph["c"].isascii() and glyph["c"].isalpha():
                # the data reads Greek "Ι" and Cyrillic "І" as "l", which looks like "I" as well: a
                # capital is read as the capital ("Ιmplementer" is "Implementer"; hostile pass 20)
                return "I" if glyph["c"] == "l" and char.isupper() else str(glyph["c"])
    return char


# Three or more letters or digits standing apart, each by one to three spaces or by one to three
# of the marks a writer puts between letters (not an apostrophe, a comma or a colon): "P l a n t",
# "G.P.T", "K-i-m-i", "K_i_m_i", "C/l/a/u/d/e", "C*l*a*u*d*e", "G  P  T"; the last piece may be a
# word after a mark ("Q*w*en"; after a space it is the next word: "K-i-m-i says"). The letters
# stand apart the same way throughout, so that a one-letter word before them stays a word: "a
# C-l-a-u-d-e model" reads "a Claude model", "I'm K-i-m-i" reads "I'm Kimi" (hostile pass 15)
_MARKS = r"[.·•\-_/|*~+=^#\\]{1,3}"
_APART = rf"(?:[ \t]{{1,3}}|{_MARKS})"
# a letter or digit with none after it; not the pronoun I that starts a clause ("x x I am the
# moderator" reads "x x I am", not "xxI am")
_LONE = r"(?!I(?:[ \t]+(?:am|was|have|had|will|would|think|believe|agree|propose|suggest|feel)\b|['’][a-z]))[^\W_](?![^\W_])"
# (a small letter before a capital, spaced, is a word too: "a K i m i" reads "a Kimi"; so is the
# letter after an apostrophe: "I'm a P-l-a-n-t")
_SPACED = re.compile(
    rf"(?<![^\W_])(?<!['’])(?![a-z][ \t]{{1,3}}[A-Z])[^\W_](?P<apart>{_APART}){_LONE}(?:(?P=apart){_LONE})*"
    rf"(?:(?P=apart){_LONE}|{_MARKS}[^\W_]{{2,}})"
)


# A word broken by emphasis or a stray mark between two of its letters, as Markdown or HTML shows it
# whole: "Clau*de", "**Cl**aude", "Cl`a`ude", "Cl_aude", "Cl.aude", "C<b></b>laude" (never between
# digits: "GPT-4.1" keeps its point)
_TAG = r"</?[a-z]{1,6}>"
_BREAK = rf"(?:[*_`~.]{{1,3}}|{_TAG}){{1,4}}"
_BROKEN = re.compile(rf"(?<![^\W_])[^\W\d_]+(?:{_BREAK}[^\W\d_]+)+(?![^\W_])")
_TAGS = re.compile(_TAG)

# The hyphen's look-alikes read as the hyphen, and the katakana middle dot as the Latin one, one
# character for one: a name's pattern then needs no class beyond Latin-1 between its letters (such
# a class made a catalogue's patterns take seconds of CPU to compile, in every new process). NFKC
# has already made the non-breaking hyphen U+2011 the hyphen U+2010, and "･" the katakana dot.
_DASHES_READ = str.maketrans({"\u2010": "-", "\u2013": "-", "\u30fb": "\u00b7"})


def marks_read(text: str) -> str:
    """``text`` (after NFKC) with the hyphen's look-alikes and the katakana middle dot read as
    ``reader_form`` reads them, last: a name of the catalogue is read the same way as the text."""
    return text.translate(_DASHES_READ)


# A word hyphenated across a line break, as a reader joins it: "Gem-\nini", "Clau‐ \n de"
# (only the hyphen and the break are matched and dropped: a long word is not read twice)
_HYPHENATED = re.compile(r"(?<=[^\W\d_])[\-‐‑][ \t]*\r?\n[ \t]*(?=[^\W\d_])")


def _joined(
    seen: str, origins: list[int], pattern: re.Pattern[str], *, tags: bool = False
) -> tuple[str, list[int]]:
    """``seen`` with each match of ``pattern`` reduced to its letters and digits (``tags``: HTML
    tags dropped first), and the origins of what is kept."""
    joined: list[str] = []
    kept: list[int] = []
    at = 0
    for match in pattern.finditer(seen):
        joined.append(seen[at : match.start()])
        kept += origins[at : match.start()]
        dropped = {i for tag in _TAGS.finditer(match[0]) for i in range(*tag.span())} if tags else set()
        for offset, char in enumerate(match[0]):
            if char.isalnum() and offset not in dropped:
                joined.append(char)
                kept.append(origins[match.start() + offset])
        at = match.end()
    joined.append(seen[at:])
    kept += origins[at:]
    return "".join(joined), kept


def reader_form(text: str) -> tuple[str, list[int]]:
    """``text`` as a reader sees it (compatibility forms folded by NFKC, invisible characters
    dropped, Latin look-alikes made Latin, traditional Chinese made simplified, spaced-out letters
    joined, then the hyphen's look-alikes read as the hyphen: ``marks_read``), and the index in
    ``text`` each of its characters came from."""
    chars: list[str] = []
    origins: list[int] = []
    for index, char in enumerate(text):
        if invisible(char):
            continue
        for folded in unicodedata.normalize("NFKC", char):
            chars.append(latin_look_alike(folded))
            origins.append(index)
    seen, kept = _joined(_simplified_text("".join(chars)), origins, _SPACED)
    seen, kept = _joined(seen, kept, _HYPHENATED) if "\n" in seen else (seen, kept)
    return marks_read(seen), kept


# Emphasis around words and quotes around one word, as Markdown shows them (hostile pass 16: "As
# the **Futurist**,", "As the "Futurist",", "作为**未来学家**，", "As *the* Futurist"): read without
# them. A quotation of several words stays quoted (it may be someone else's: '"I am an
# environmentalist," says Maria'); an apostrophe or underscore inside a word stays ("it's"). HTML
# emphasis and a highlight too ("As the <b>Plant</b>, I", "As the ==Implementer==,"; hostile pass 22).
_WRAPS = re.compile(
    rf"\*{{1,3}}|~~|==|`{{1,3}}|(?<![^\W_])_{{1,3}}|_{{1,3}}(?![^\W_])|[\"“„'‘「『][^\W_]+[\"”'’」』]|{_TAG}"
)


def words_unbroken(seen: str, origins: list[int]) -> tuple[str, list[int]]:
    """A reader form (``reader_form``) with the words broken by emphasis or a stray mark made whole,
    and emphasis and quotes around words dropped, and its origins: a second reading, as joining
    may also join two words ("end.Next") and a quote may be what makes a tag ("[...] "x"")."""
    whole = _joined(seen, origins, _BROKEN, tags=True)
    return _joined(*whole, _WRAPS, tags=True)


def words_apart(seen: str, origins: list[int], at: list[int]) -> tuple[str, list[int]]:
    """A reader form with a space put before each index of ``at`` (two words written as one:
    "ModeratorBot"), and its origins (a space comes from the character after it)."""
    parts: list[str] = []
    kept: list[int] = []
    start = 0
    for index in sorted(set(at)):
        parts += [seen[start:index], " "]
        kept += [*origins[start:index], origins[index]]
        start = index
    parts.append(seen[start:])
    kept += origins[start:]
    return "".join(parts), kept

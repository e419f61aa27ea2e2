"""Where in a text the blind-text check looks (``studies.blind_text``): a term's patterns run only
in windows around the places where its longest word stands among the text's letters and digits, and
the text is read again: with digits inside words read as letters ("G3mini"), and with broken words
made whole (``readings``); a role glued to an agent's word is set apart in both. Pure."""

from __future__ import annotations

import re
from collections.abc import Callable

from core.text_forms import reader_form, words_apart, words_unbroken
from studies.blind_names import glued_after

Windows = list[tuple[int, int]]

# A term's patterns run only near where its longest word stands in the text's letters and digits
# (spaces and marks dropped, lower case): a text without the word costs one substring search per
# term, and a long text with it the matches of windows this wide around each place.
MARGIN = 400
KEY_MIN = 3  # a shorter key (the "o" of "o1") would stand everywhere: the whole text is searched
# digits and signs written for letters inside a word ("G3mini", "Cl4ude", "K1mi", "Cl@ude",
# "Deep$eek", "G€mini"); a 1 is also read as an l ("L1ama"), in a reading of its own
# and a bar or an exclamation mark inside a word as the letter it stands for ("C|aude", "K!mi"; hostile
# pass 20): a bar as an l, and as an i in the second reading ("K|mi")
_LEET = str.maketrans("013457@$€!|", "oieastaseil")
_ONE_AS_L = str.maketrans("1|", "li")
_WORDS = re.compile(r"[^\W_]+")  # each word once: no pattern that backtracks inside a long word
_TOKENS = re.compile(r"(?:[^\W_]|[@$€]|[!|](?=[^\W\d_]))+")
# a small l written for a capital I after a capital, at a word's end or before a capital ("OpenAl")
_SMALL_L = re.compile(r"(?<=[A-Z])l(?=[A-Z]|$)")
# the two letters swapped the other way (hostile pass 20): a capital I between a capital and a small
# letter as an l ("CIaude"), a small l opening a word before an m or an n as an I ("lmplementer"; no
# English word opens so)
_CAPITAL_I = re.compile(r"(?<=[A-Z])I(?=[a-z])")
_OPENING_L = re.compile(r"^l(?=[mn])")


def compact_letters(seen: str) -> tuple[str, list[int]]:
    """``seen``'s letters and digits in lower case (z as s: "Synthesiser" stands where "Synthesizer"
    would), and where each stands in ``seen``."""
    lower = seen.lower()
    if len(lower) != len(seen):  # a letter whose lower case is longer ("İ"): one by one
        lower = "".join(c.lower() if len(c.lower()) == 1 else c for c in seen)
    lower = lower.replace("z", "s")
    places = [m.start() + i for m in _WORDS.finditer(lower) for i in range(m.end() - m.start())]
    return "".join(lower[i] for i in places), places


def digits_read_as_letters(seen: str) -> list[str]:
    """``seen`` read with the digits and signs of words that mix them with letters as letters, a
    small l after a capital as the capital I it may stand for ("OpenAl") and the other way ("CIaude",
    "lmplementer"), each reading of the same
    length; a second reading with a 1 as an l ("L1ama") where a word has one. None where nothing
    is read otherwise."""

    def reader(one_as_l: bool) -> Callable[[re.Match[str]], str]:
        def read(word: re.Match[str]) -> str:
            token = word[0]
            letters = sum(c.isalpha() for c in token)
            mixed = letters >= 2 and any(c.isdigit() or c in "@$€!|" for c in token)
            if mixed:
                token = token.translate(_ONE_AS_L).translate(_LEET) if one_as_l else token.translate(_LEET)
            camel = letters >= 3 and any(c.isupper() for c in token[1:])
            token = _OPENING_L.sub("I", _CAPITAL_I.sub("l", token)) if letters >= 3 else token
            return _SMALL_L.sub("I", token) if camel else token

        return read

    found: list[str] = []
    for one_as_l in (False, True):
        reading = _TOKENS.sub(reader(one_as_l), seen)
        if reading != seen and reading not in found:
            found.append(reading)
    return found


def windows_around(compact: str, places: list[int], key: str, size: int) -> Windows:
    if len(key) < (KEY_MIN if key.isascii() else 2):  # two Chinese letters are rare enough
        return [(0, size)]
    windows: Windows = []
    at = compact.find(key)
    while at != -1:
        lo, hi = max(places[at] - MARGIN, 0), min(places[at + len(key) - 1] + 1 + MARGIN, size)
        if windows and lo <= windows[-1][1]:
            windows[-1] = (windows[-1][0], hi)
        else:
            windows.append((lo, hi))
        at = compact.find(key, at + 1)
    return windows


def windows_merged(windows: Windows) -> Windows:
    merged: Windows = []
    for lo, hi in sorted(windows):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


def windows_within(windows: Windows, near: Windows) -> Windows:
    """The parts of ``windows`` inside ``near`` (both sorted, each without overlaps)."""
    kept: Windows = []
    i = j = 0
    while i < len(windows) and j < len(near):
        lo, hi = max(windows[i][0], near[j][0]), min(windows[i][1], near[j][1])
        if lo < hi:
            kept.append((lo, hi))
        if windows[i][1] < near[j][1]:
            i += 1
        else:
            j += 1
    return kept


def roles_apart(seen: str, origins: list[int], roles: list[str]) -> tuple[str, list[int]]:
    """A reader form with an agent's word glued to a role set apart ("ModeratorBot": "Moderator
    Bot"), and its origins. Within the first reading, not a further one: only a role's own word is
    cut, which no other name of the catalogue ends with, and a reading costs the text's length."""
    glued = glued_after(seen, roles)
    return words_apart(seen, origins, glued) if glued else (seen, origins)


def readings(text: str, roles: list[str]) -> list[tuple[str, list[int]]]:
    """``text`` as a reader sees it (``reader_form``), then, where it has words broken by emphasis
    ("Clau*de"), read again with them made whole; each with its origins."""
    seen, origins = roles_apart(*reader_form(text), roles)
    whole = words_unbroken(seen, origins)
    return [(seen, origins), roles_apart(*whole, roles)] if whole[0] != seen else [(seen, origins)]

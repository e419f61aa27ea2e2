"""A name of one word split by a space or a line break (``studies.blind_text``): "Implemen ter",
"Clau⏎de", "Gem ini". A reader joins the pieces; the patterns, which read whole words, do not.
Found among the text's letters and digits (``blind_windows.compact_letters``), where the pieces are
whole words of the text, one of them no longer than three letters (two words of prose written
together make no name: "team worker" is not "Teamworker"), kept apart by whitespace alone. A role's
word is looked for so from eight letters on ("Pl ant" stays two words); a model's also where its
capital follows a small letter ("IamClaude", a sentence spaced out letter by letter). Pure."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol, TypeVar

_ONE_WORD = re.compile(r"[A-Za-z]{4,}")
LONG_WORD = 8  # a role's shorter word in pieces may be prose
_GAP = re.compile(r"[ \t]{1,3}|[ \t]*\r?\n[ \t]*")  # what may stand between two pieces
SHORT_PIECE = 3


class _Term(Protocol):
    @property
    def text(self) -> str: ...


T = TypeVar("T", bound=_Term)


def split_names(
    form: str, compact: str, places: list[int], names: Iterable[T], words: Iterable[T]
) -> list[tuple[int, int, T]]:
    """Where ``form`` (a reader form; ``compact``, ``places``: its letters and digits in lower
    case, z read as s, and where each stands) names a one-word term in pieces: of ``names`` (a
    model's) of four letters or more, of ``words`` (a role's) of eight or more."""
    found: list[tuple[int, int, T]] = []
    looked_for = [(term, True) for term in names] + [(w, False) for w in words if len(w.text) >= LONG_WORD]
    for term, glued in looked_for:
        if not _ONE_WORD.fullmatch(term.text):
            continue
        key = term.text.lower().replace("z", "s")
        at = compact.find(key)
        while at != -1:
            span = _pieces_span(form, places[at : at + len(key)], glued=glued)
            if span is not None:
                found.append((*span, term))
            at = compact.find(key, at + 1)
    return found


def _pieces_span(form: str, where: list[int], *, glued: bool) -> tuple[int, int] | None:
    """``where``'s span where its pieces are whole words; with ``glued``, also a name whose capital
    follows a small letter: a sentence spaced out letter by letter joins into one word ("I a m C l
    a u d e" reads "IamClaude"; "c l A u d e" is found whole, as "clAude")."""
    start, end = where[0], where[-1] + 1
    camel = glued and start > 0 and form[start].isupper() and form[start - 1].islower()
    if (start and form[start - 1].isalnum() and not camel) or (end < len(form) and form[end].isalnum()):
        return None  # inside a longer word
    if camel and all(after == before + 1 for before, after in zip(where, where[1:], strict=False)):
        return start, end
    pieces: list[int] = [1]
    for before, after in zip(where, where[1:], strict=False):
        if after == before + 1:
            pieces[-1] += 1
        elif _GAP.fullmatch(form, before + 1, after):
            pieces.append(1)
        else:
            return None
    if len(pieces) < 2 or min(pieces) > SHORT_PIECE:
        return None  # one word, or words of prose
    return start, end

"""How a name of a study's catalogue may be written (``studies.blind_text``): a pattern for its
words, with a space, a hyphen or nothing where its words, case or digits change, and a small
number spelled out; and whether prose would contain it by chance. Pure."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Mapping
from typing import TypeVar

from core.text_forms import marks_read

_Term = TypeVar("_Term")  # what a research ID's code stands for (``blind_text.BlindTerm``)


def term_is_distinctive(text: str) -> bool:
    """A name that ordinary prose would not contain (see the module's docstring)."""
    if any(ch.isdigit() for ch in text):
        return True
    if any(ch.isalpha() and not ch.isascii() for ch in text):
        return True
    words = re.findall(r"[A-Za-z]+", text)
    # a capital inside a word (TeamLLM, DeepSeek, GPT), or a capital letter as a word after the
    # first (a label: "Debater A")
    return any(any(ch.isupper() for ch in word[1:]) for word in words) or any(
        len(word) == 1 and word.isupper() for word in words[1:]
    )


# between the words of a name, or where its case or script changes ("DeepSeek", "Qwen3",
# "Debater A"): a text may write a space, a hyphen or nothing ("Deep Seek", "Qwen 3",
# "Debater-A", "Monitor-Evaluator")
JOINT = r"[\s\-_/()]*"  # also "Monitor/Evaluator", "Debater (A)"


NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
ORDINALS = (
    "",
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
)


# between the letters of a Chinese name: spaces, a hyphen, a middle dot ("千-问", "千·问"; hostile pass 19)
_CHINESE_APART = r"[\s\-_·]*"

ROMAN = ("", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X")


def _piece_pattern(piece: str, *, split: bool = False, hyphened: bool = False) -> str:
    """One piece of a name: a small number may be written "#1", "No. 1", "one" or "first";
    Chinese letters may stand apart ("深度 求索", "千-问", "千·问"); with ``split``, a word of four
    letters or more may have a space, a hyphen, a dash or a slash inside it ("Gem ini", "Clau de",
    "Ki-mi", "Clau/de"); with ``hyphened``, a word of six letters or more a hyphen, a dash or a slash
    ("start-up" for "Startup", "Imple–menter"; hostile pass 22), and one ending in
    "er" an "or" ("Implementor")."""
    if piece.isascii() and piece.isdigit() and int(piece) <= 10:  # "²" and "①" are digits int() refuses
        number = int(piece)
        spelled = "|".join(re.escape(w) for w in (NUMBER_WORDS[number], ORDINALS[number]) if w)
        # "Member III" (and "Member Ⅲ", read as "III"), in capitals; zero has none (an empty
        # alternative would let "model-0" stand for "model" alone)
        roman = rf"|(?-i:{ROMAN[number]})\b" if ROMAN[number] else ""
        return rf"(?:(?:#|No\.?|number)\s*)?(?:{re.escape(piece)}(?!\d)|(?:{spelled})\b{roman})"
    if piece.isalpha() and not piece.isascii():
        return _CHINESE_APART.join(re.escape(char) for char in piece)
    if split and piece.isascii() and piece.isalpha() and len(piece) >= 4:
        return "[ \t\\-/]?".join(re.escape(char) for char in piece)
    if hyphened and piece.isascii() and piece.isalpha() and len(piece) >= 6:
        # an agent noun's other spelling: "Implementor" for "Implementer" (hostile pass 20)
        stem, ending = (piece[:-2], "(?:er|or)") if piece.lower().endswith("er") else (piece, "")
        return (
            "[\\-/]?".join(
                "[sz]" if piece[i - 1 : i + 2] == "ize" else re.escape(char) for i, char in enumerate(stem)
            )
            + ending
        )
    # British and American spellings: "Synthesiser", "Organiser"
    return re.sub(r"iz(?=e)", "i[sz]", re.escape(piece))


# between a role's words, also "and": "the monitor and evaluator" for "Monitor Evaluator"
_AND = r"(?:\s+(?:and|&)\s+)"


def term_pattern(text: str, *, split: bool = False, compound: bool = False) -> str:
    """A name's pattern; ``split``: its longer words may have a space inside (a model's name, which
    is looked for anywhere: "Gem ini" is no word of prose); ``compound``: its longer words may have
    a hyphen inside and its words an "and" between (a role's name: "start-up founder", "monitor and
    evaluator"; hostile pass 16)."""
    # the name as the text is read (NFKC and the dashes, as ``reader_form`` reads it): "Agent²" is
    # "Agent2", "千・问" is "千·问"
    text = marks_read(unicodedata.normalize("NFKC", text))
    words = [word for word in re.split(r"[\s\-‐‑–_]+", text.strip()) if word]
    parts = []
    for word in words:
        pieces = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+(?:\.\d+)?|[^\W\d_]+|\W", word)
        parts.append(
            JOINT.join(_piece_pattern(piece, split=split, hyphened=compound) for piece in pieces)
            if "".join(pieces) == word
            else re.escape(word)
        )
    return (rf"(?:{_AND}|{JOINT})" if compound else JOINT).join(parts)


# Belbin's abbreviations of his team roles, as a team's transcript labels a speaker ("ME:", "(PL)")
_BELBIN = {
    "plant": "PL", "resource investigator": "RI", "co-ordinator": "CO", "coordinator": "CO", "shaper": "SH",
    "monitor evaluator": "ME", "monitor-evaluator": "ME", "teamworker": "TW", "implementer": "IMP",
    "completer finisher": "CF", "completer-finisher": "CF", "specialist": "SP",
}  # fmt: skip


def numbered_together(word: str, n: int) -> str:
    """Members named together by their word's plural with its capital and their numbers, ``n``
    among them: "Members 1 and 2 agreed", "Members 1, 2 and 3" (``word``: the member's word's
    pattern; hostile pass 20)."""
    joined = r"\s*(?:,|and|&)\s*"
    numbers = rf"(?:{n}(?:{joined}\d{{1,2}})+|(?:\d{{1,2}}{joined})+{n})(?!\d)"
    return rf"(?-i:(?=[A-Z])){word}s{JOINT}{numbers}"


def role_abbreviations(name: str) -> tuple[str, ...]:
    """How a role of plain words may be abbreviated as a speaker's label, in capitals: Belbin's
    ("Monitor Evaluator": "ME", "Implementer": "IMP") and a name's initials ("Creative
    Professional": "CP"); none for a debate's side or a labelled or numbered role ("Debater A")."""
    words = re.split(r"[\s\-‐‑–_]+", name.strip())
    if not all(word.isascii() and word.isalpha() for word in words) or words[-1].lower() == "side":
        return ()
    initials = "".join(word[0] for word in words).upper() if len(words) >= 2 and len(words[-1]) > 1 else ""
    belbin = _BELBIN.get(" ".join(name.split()).lower(), "")
    return tuple(dict.fromkeys(a for a in (belbin, initials) if a))


# Words of a model's name that are no model of their own: a family's variants ("grok-4-fast",
# "gemini-2.5-flash") and what follows a family in any name ("qwen-chat")
MODEL_WORDS = {"chat", "instruct", "preview", "latest", "turbo", "mini", "large", "small", "base", "model"}
VARIANT_WORDS = MODEL_WORDS | {"fast", "lite", "plus", "ultra", "vision", "reasoner", "thinking", "coder", "omni",
                               "online", "nano", "high", "medium", "long", "context", "flash", "experimental"}  # fmt: skip
_CODE = re.compile(r"[A-Za-z]\d{1,2}")  # "r1", "v3", "k2"


def model_line_words(name: str) -> tuple[str, ...]:
    """The words after a model's family that a text may call itself by ("I am Opus", "I'm R1" for
    "claude-opus-4", "deepseek-r1"): a product line's word or a short code. Prose elsewhere ("a
    magnum opus", "the R1 road"): looked for only where a text says it is them (hostile pass 16)."""
    parts = [part for part in re.split(r"[-_:.\s]+", name.rsplit("/", 1)[-1].strip()) if part][1:]
    return tuple(
        dict.fromkeys(
            part
            for part in parts
            if (part.isalpha() and len(part) >= 4 and part.lower() not in VARIANT_WORDS)
            or _CODE.fullmatch(part)
        )
    )


# A research ID's shape: a condition's letters, a model's number, then a scenario's code ("A07_FS10",
# "A07-FS10"); the code is looked up among the study's, so that a study of thousands of scenarios
# costs one pass, not a pattern per scenario (hostile pass 11: 2,454 terms, 1.8 s a response)
# (its bounds are Latin letters and digits only: Chinese glued to it, "编号A05_FS10。" or
# "A05_FS10的回答", is no part of it (hostile pass 19); "ABC07_FS12" is no research ID)
RESEARCH_ID_SHAPE = re.compile(
    r"(?<![A-Za-z0-9])[A-Z]{1,2}(?:[0-9][0-9OIl]|[OIl][0-9])(?:\\?_|[\-‐ /.])?(?P<code>[A-Z0-9]+(?:-[A-Z0-9]+)*)",
    re.I,
)
_LATIN_OR_DIGIT = re.compile(r"[A-Za-z0-9]")


def research_ids_in(form: str, codes: Mapping[str, _Term]) -> list[tuple[int, int, _Term]]:
    """Each research ID of ``codes`` (casefolded scenario codes, each with its term) in ``form``:
    start, end and the code's term."""
    found = []
    for match in RESEARCH_ID_SHAPE.finditer(form):
        code = match["code"]
        # the longest code of the study the text's begins with, up to a hyphen ("FS10-based": FS10)
        for end in sorted({len(code), *(i for i, c in enumerate(code) if c == "-")}, reverse=True):
            key, after = code[:end].casefold(), match.start("code") + end
            if key in codes and not _LATIN_OR_DIGIT.match(form, after):
                found.append((match.start(), after, codes[key]))
                break
    return found


# An agent's word or a label's letter glued to the word before it at a capital: "ModeratorBot",
# "PlantAgent", "EnvironmentalistAI", "DebaterA"
_GLUED = re.compile(
    r"(?<=[^\W\d_])(?<![A-Z])(?=(?:Bot|Agent|AI|LLM|GPT|Assistant|Persona)(?![a-z])|[A-Z](?![A-Za-z]))"
)
_WORD_BEFORE = re.compile(r"[^\W\d_]{1,60}$")


@functools.lru_cache(maxsize=64)
def _endings(names: tuple[str, ...]) -> tuple[str, ...]:
    # a labelled role ("Debater A") ends with its word: "DebaterA" and "DebaterB" are glued to it
    unlabelled = (re.sub(r"[\s\-_]+[A-Z]$", "", name.strip()) for name in names)
    return tuple({re.sub(r"[\W_]+", "", name).casefold() for name in unlabelled} - {""})


def glued_after(form: str, names: Iterable[str]) -> list[int]:
    """Where an agent's word or a label's letter is glued to one of ``names`` (a study's roles):
    the index of its capital in ``form``. Only there does a reader see two words; "OpenAI" and
    "PowerPlant" are left whole, and so is a text with none (no second reading to pay for)."""
    endings = _endings(tuple(names))
    if not endings:
        return []
    found = []
    for match in _GLUED.finditer(form):
        word = _WORD_BEFORE.search(form, max(match.start() - 60, 0), match.start())
        if word and word[0].casefold().endswith(endings):
            found.append(match.start())
    return found

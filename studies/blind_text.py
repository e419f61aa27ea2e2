"""Text that would break the blind: a response naming a role, member profile, strategy, condition or
model of its study's catalogue ("As the Environmentalist, I ...", a "[... · Moderator]" tag, "As
GPT-4o, ..."). Pure: no database; the catalogue's terms come from ``studies.selectors.study_blind_terms``.

The rule, for a term of the catalogue (case-insensitive, whole words: a match never starts or ends
inside a word):
- a **distinctive** term (it has a digit, a capital inside a word as in "TeamLLM" or "LLM Discussion",
  or letters that are not Latin, as a Chinese name), a **model**'s name and a word the admin adds when
  redacting match anywhere;
- a **role** or **member** of plain words ("Plant", "Implementer", "Creative Professional": what the
  model is told to be) matches where a text names itself by it: "as the/a/an/our Plant", "as an
  implementer," / "as the plant of the team", "I am (the) Moderator", "my role (as/is) ...", "作为…",
  "我是…", a speaker label at the start of a line ("Plant:", "**Plant**:"), or a bracketed tag ("[... ·
  Moderator]", "(Moderator)");
- a **condition** or **strategy** of plain words ("single", "Single model": names the model is never
  told) matches only as a speaker label or a bracketed tag ("[single]", "Single model:"), so "a single
  plan" and "as a single, unified team" stay prose;
- a condition or strategy of three words or more ("Multi-Agent Debate") matches anywhere, "our multi
  agent debate" included: prose does not say it by chance;
- a **research ID** of one of the study's scenarios ("A07_FS10") matches anywhere;
- a role in Chinese ("作为一名未来学家", "执行者：") as a plain English role does, and anywhere when it has a letter
  or digit ("辩手A", "成员1");
- a **maker** of models ("Google") where a text says who made it ("trained by Google", "由阿里巴巴开发"); a
  word of a **model**'s name after its family ("Opus", "R1") where a text says it is it ("I am Opus,",
  "R1 here:"); a role's abbreviation in capitals ("ME", "PL", "CP") and a debate's side as a speaker
  label ("ME:", "Affirmative:");
- a role also where a text speaks of a teammate by it: "our moderator", "the other debater", "the
  plant's critique", "As the environmentalist pointed out", "在执行者看来";
- any plain term of several words with a capital after its first word also matches anywhere when written
  with the catalogue's own capitals ("our Creative Professional").
The full list, and what stays prose ("plant trees"): docs/admins.md. The text is read as a reader sees
it (``core.text_forms.reader_form``), again with words broken by emphasis made whole, and each once more
with digits and signs inside words read as letters ("G3mini"); a word in pieces: ``blind_split``.

Cost: one pattern per context with every term of a kind as an alternative, run only in windows around the
terms' longest words: a text costs its length times the number of contexts, whatever the catalogue's size
(bench/bench_blind_text.py). Contexts: ``studies.blind_contexts``, ``blind_debate``, ``blind_teammates``;
names: ``studies.blind_names``; where it looks: ``studies.blind_windows``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from core.text_forms import reader_form
from studies.blind_contexts import (
    AFTER,
    BEFORE,
    BLANK,
    LETTER,
    ZH_EVERYDAY_ROLES,
    in_a_proper_name,
    quoted_speech,
)
from studies.blind_debate import DEBATE_AFTER, DEBATE_SIDE_AFTER, DEBATE_SIDES, ZH_DEBATERS, ZH_SIDE_SELF
from studies.blind_names import (
    JOINT,
    NUMBER_WORDS,
    ORDINALS,
    model_line_words,
    numbered_together,
    research_ids_in,
    role_abbreviations,
    term_is_distinctive,
    term_pattern,
)
from studies.blind_recipes import (
    ABBREVIATED,
    ANYWHERE,
    CAPITALS,
    CHAINED,
    CLAIMED,
    CONTEXTS,
    MAKERS,
    MID_SENTENCE,
    NUMBERED,
    PLURAL,
    SELF_NAMED,
    SIDE,
    TAGGED,
    TEAM_EN,
    TEAM_ZH,
    ZH_DEBATE,
    ZH_SPEAKING,
)
from studies.blind_split import split_names
from studies.blind_windows import (
    KEY_MIN,
    MARGIN,
    Windows,
    compact_letters,
    digits_read_as_letters,
    readings,
    windows_around,
    windows_merged,
    windows_within,
)

# Where a term comes from, as the held responses page names it.
ROLE, PROFILE, STRATEGY, CONDITION, MODEL = "role", "profile", "strategy", "condition", "model"
WORD = "word"  # a word an admin asks to redact as well: matched anywhere, as a model's name
# a scenario's code: any research ID of that scenario ("A07_FS10") in a text names its condition and model
RESEARCH_ID = "research_id"
# a company that makes models ("Google", "阿里巴巴"): named where a text says who made it ("trained by
# Google", "由阿里巴巴开发"), which names the model; elsewhere it is prose
MAKER = "maker"
KINDS = (ROLE, PROFILE, STRATEGY, CONDITION, MODEL, WORD, RESEARCH_ID, MAKER)
BLIND_TEXT = "blind_text"  # the hold reason's code
MIN_TERM_LENGTH = 3  # shorter names (a condition's letter, "AI") would match too much


@dataclass(frozen=True)
class BlindTerm:
    text: str
    kind: str  # one of KINDS


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    term: str
    kind: str


_NUMBERED_NAME = re.compile(r"[A-Za-z][A-Za-z\s\-]*?[\s\-]*\d{1,2}")  # "Member 1", "Agent-2"
_LABELLED = re.compile(r"(.+?)[\s\-‐‑–_]+([A-Z])")  # a role with a letter for a label: "Debater A"


@dataclass(frozen=True)
class _Alternative:
    """One term as an alternative of its recipes' patterns: the boundaries its name needs on either
    side, its name's pattern (``{group}`` marks where the term's capturing group's name goes) and
    the same written with the catalogue's capitals, for the recipes that keep case."""

    term: BlindTerm
    before: str
    name: str
    cased: str
    after: str
    starts: str = ""  # the characters a variant's name may start with, where not its term's


@functools.lru_cache(maxsize=8192)
def _alternative(term: BlindTerm) -> tuple[_Alternative, tuple[str, ...]] | None:
    """How ``term`` is looked for (its recipes), or None when it is too short to look for."""
    written = term.text.strip()
    if len(written) < (MIN_TERM_LENGTH if written.isascii() else 2):
        return None
    # Chinese puts no space between words: no boundary on a side where the term has a Chinese letter
    before = BEFORE if written[0].isascii() else ""
    after = AFTER if written[-1].isascii() else ""
    if term.kind == MODEL and after:
        # a version may follow a model's name ("Gemini2.5", "Qwen3"), and a word glued on at a capital
        # ("QwenChat", "KimiBot"; hostile pass 19)
        after = rf"(?:(?!{LETTER})|(?<=(?-i:[a-z]))(?=(?-i:[A-Z])))"
    core = term_pattern(written, split=term.kind == MODEL, compound=term.kind in (ROLE, PROFILE))
    labelled = _LABELLED.fullmatch(written)
    if term.kind in (ROLE, PROFILE) and labelled:
        # "Debater A" of a debate: its other labels name a debater too ("Debater 1", "Debater C")
        # (not "I": "the best debater I ever met")
        core = rf"{term_pattern(labelled[1])}{JOINT}(?:(?-i:[A-HJ-Z])|[1-9](?!\d))"
    core = core.replace("{", "{{").replace("}", "}}")
    name = rf"(?P<{{group}}>{core})"
    # the catalogue's capital first ("As the Plant", "As Coordinator" for "Co-Ordinator"): prose
    # writes a role's word in lower case ("as a plant")
    cased = rf"(?-i:(?=[A-Z])){name}" if written[0].isupper() else rf"(?-i:{name})"
    found = _Alternative(term, before, name, cased, after)
    if term.kind == MAKER:
        return found, (MAKERS,)
    several_words = len(re.split(r"[\s\-‐‑–_]+", written)) >= 3  # "Multi-Agent Debate": not prose
    # a role in Chinese letters alone ("执行者", "主持人") is prose elsewhere ("政策执行者"): only where
    # a text names itself by it, as a plain English role; with a letter, a digit or a member's number
    # ("辩手A", "成员1", "一号成员", "第二位成员") and a debate's side it names the agent anywhere
    chinese_role = term.kind == ROLE and not any(c.isascii() and c.isalnum() for c in written)
    chinese_role &= (
        "号" not in written and not re.fullmatch(r"第.位成员", written) and written not in DEBATE_SIDES
    )
    chinese_role &= len(written) < 5 or written in ZH_EVERYDAY_ROLES  # "监督评估者" is no prose (pass 23)
    # a short Chinese condition or strategy ("单一模型") is prose too ("不应依赖单一模型"); a long one
    # ("多智能体辩论") is not
    chinese_role = chinese_role or (
        term.kind in (STRATEGY, CONDITION)
        and not written.isascii()
        and len(written) < 5
        and not any(c.isascii() and c.isalnum() for c in written)
    )
    if not written.isascii() and written[-1].isdigit():  # "成员1", not "成员1号楼"
        after = r"(?![0-9号楼层栋岁个名人次年月日])"
        found = _Alternative(term, before, name, cased, after)
    if term.kind in (ROLE, PROFILE) and written in DEBATE_SIDES:
        found = _Alternative(term, before, name, cased, DEBATE_AFTER)
    capitalised_role = term.kind in (ROLE, PROFILE) and written.isascii() and written[0].isupper()
    if capitalised_role and _NUMBERED_NAME.fullmatch(written):
        # "Member 1" with its capital anywhere, in any case where a text names itself by it ("a
        # household member 2 litres" is prose)
        return found, (NUMBERED, SELF_NAMED)
    if term.kind == PROFILE and not labelled:  # a member's name an admin gave: "Alice", "王芳" (pass 23)
        return found, (CAPITALS if written[0].isupper() else ANYWHERE,)
    if (
        term.kind in (MODEL, WORD)
        or (term_is_distinctive(term.text) and not chinese_role)
        or (term.kind in (STRATEGY, CONDITION) and several_words)
    ):
        return found, (ANYWHERE,)
    recipes = [SELF_NAMED if term.kind in (ROLE, PROFILE) else TAGGED]
    if term.kind in (ROLE, PROFILE):
        recipes.append(TEAM_EN if written.isascii() else TEAM_ZH)
    if any(word[0].isupper() for word in written.split()[1:]):  # "Creative Professional"
        recipes.append(CAPITALS)
    if term.kind in (ROLE, PROFILE) and written[0].isupper():
        recipes.append(MID_SENTENCE)
    if chinese_role and term.kind == ROLE and written not in ZH_EVERYDAY_ROLES:
        recipes.append(ZH_SPEAKING)
    if chinese_role and written in ZH_DEBATERS:
        recipes.append(ZH_DEBATE)
    return found, tuple(recipes)


_NEVER = "(?!)"  # a variant's written-with-capitals form where it has none


def _variants(term: BlindTerm, found: _Alternative) -> list[tuple[_Alternative, tuple[str, ...]]]:
    """Further ways a role is written, each in its own contexts: a member's number first ("the
    first member", "the 2nd member": where a text names itself or a teammate by it), a plain
    role's plural ("both debaters agreed") and a debate's side before an arguer's word."""
    written = term.text.strip()
    if term.kind in (ROLE, PROFILE) and written in DEBATE_SIDES:  # "作为正方，", "我方是正方"
        after = r"(?=\s*(?:[，,。.：:；;！!]|我|\Z))"
        side = _Alternative(term, "", ZH_SIDE_SELF + found.name, _NEVER, after, starts="作身我代")
        return [(side, (ANYWHERE,))]
    if term.kind not in (ROLE, PROFILE) or not written.isascii():
        return []
    if labelled := _LABELLED.fullmatch(written):
        written = labelled[1]  # "Debater A": "both debaters"
    numbered = re.fullmatch(r"([A-Za-z][A-Za-z\s\-]*?)[\s\-]*(\d{1,2})", written)
    if numbered and 1 <= int(numbered[2]) <= 10:
        n = int(numbered[2])
        first = rf"(?:{ORDINALS[n]}|{n}(?:st|nd|rd|th)){JOINT}{term_pattern(numbered[1])}"
        together = numbered_together(term_pattern(numbered[1]), n)  # "Members 1 and 2 agreed"
        return [(_Alternative(term, found.before, _named(first), _NEVER, found.after, f"{ORDINALS[n][0]}{ORDINALS[n][0].upper()}{str(n)[0]}"), (SELF_NAMED,)),
                (_Alternative(term, found.before, _named(together), _NEVER, found.after), (ANYWHERE,))]  # fmt: skip
    if numbered or not re.fullmatch(r"[A-Za-z][A-Za-z\s\-]+", written):
        return []
    plural = _Alternative(term, found.before, _named(term_pattern(written) + r"(?:e?s)"), _NEVER, found.after)
    # a debate's side ("Affirmative side") names the strategy anywhere before an arguer's word, and
    # by its word alone where a text speaks for it ("As the affirmative, I")
    side = _Alternative(term, found.before, found.name, _NEVER, DEBATE_SIDE_AFTER)
    alone = _Alternative(term, found.before, _named(term_pattern(written[:-5])), _NEVER, found.after)
    sides = [(side, (ANYWHERE,)), (alone, (SIDE,))] if written.lower().endswith(" side") else []
    return [(plural, (PLURAL,)), *sides]


@functools.lru_cache(maxsize=8192)
def _line_word(word: str) -> _Alternative:
    """A word of a model's name as its own name ("Opus", "R1"; ``model_line_words``): shorter than
    a term may be, as it is looked for only where a text says it is it."""
    core = term_pattern(word)
    return _Alternative(BlindTerm(word, MODEL), BEFORE, _named(core), _NEVER, rf"(?!{LETTER})")


@functools.lru_cache(maxsize=256)
def _abbreviation(letters: str) -> _Alternative:
    """A role's abbreviation ("ME"; ``role_abbreviations``), in its capitals: shorter than a term may
    be, as it is looked for only as a speaker's label."""
    return _Alternative(
        BlindTerm(letters, ROLE), BEFORE, _named(f"(?-i:{re.escape(letters)})"), _NEVER, AFTER
    )


def _named(core: str) -> str:
    """``core`` in the capturing group that names its term (``{group}``, filled in per recipe)."""
    return "(?P<{group}>" + core.replace("{", "{{").replace("}", "}}") + ")"


@functools.lru_cache(maxsize=256)
def _recipe_patterns(recipe: str, alternatives: tuple[_Alternative, ...]) -> tuple[re.Pattern[str], ...]:
    """The compiled patterns of ``recipe`` for ``alternatives`` (longest first: "Debater A" wins
    over "Debater" where both would match); the capturing group ``t<i>`` names the i-th."""
    # the alternatives that need the same boundaries share them (the boundaries' Unicode classes,
    # once per term, made a catalogue's patterns take seconds to compile)
    shared: dict[tuple[str, str], list[int]] = {}
    for i, alternative in enumerate(alternatives):
        shared.setdefault((alternative.before, alternative.after), []).append(i)

    def alternation(field: str) -> str:
        return "|".join(
            before
            + "(?:"
            + "|".join(getattr(alternatives[i], field).format(group=f"t{i}") for i in kept)
            + ")"
            + after
            for (before, after), kept in shared.items()
        )

    name, cased = alternation("name"), alternation("cased")
    flags = 0 if recipe == CAPITALS else re.I
    # a look at the next character first: where no name can start, no alternative is tried
    first = f"(?=[{_first_characters(alternatives)}])"
    contexts = CONTEXTS[recipe](f"{first}(?:{name})", f"{first}(?:{cased})")
    return tuple(re.compile(context, flags) for context in contexts)


def _first_characters(alternatives: tuple[_Alternative, ...]) -> str:
    """A character class (its inside) of every character a name of ``alternatives`` may start with."""
    chars: set[str] = set()
    for alternative in alternatives:
        if alternative.starts:
            chars |= set(alternative.starts)
            continue
        written = alternative.term.text.strip()
        first = re.match(r"\d+", written)
        if first and int(first[0]) <= 10:  # "#1", "No. 1", "number one", "first"
            number = int(first[0])
            chars |= {"#", "N", "n", *first[0][0], NUMBER_WORDS[number][0], ORDINALS[number][:1]}
        else:
            letter = reader_form(written)[0][:1]
            chars |= {letter.lower(), letter.upper()}
    return "".join(re.escape(c) for c in sorted(chars) if c)


def _recipe_spans(
    text: str, recipe: str, alternatives: tuple[_Alternative, ...], windows: Windows
) -> list[tuple[int, int, BlindTerm]]:
    """Each name the recipe's contexts find inside ``windows`` of ``text`` (a match sees the whole
    text around it: a lookbehind reads before its window, "^" is a real line start)."""
    found = []
    for pattern in _recipe_patterns(recipe, alternatives):
        for lo, hi in windows:
            for match in pattern.finditer(text, lo, hi):
                group = match.lastgroup  # the contexts have no capturing group but the terms'
                if group is None:
                    continue
                start, end = match.span(group)
                term = alternatives[int(group[1:])].term
                if not _prose(text, start, end, recipe, term):
                    found.append((start, end, term))
    return found


_NAMING = (SELF_NAMED, CHAINED)  # where "member one" names itself ("As member one, I")
_SPELLED_NUMBER = re.compile("(?:" + "|".join(w for w in NUMBER_WORDS + ORDINALS if w) + ")$", re.I)


def _prose(text: str, start: int, end: int, recipe: str, term: BlindTerm) -> bool:
    """A found name that is prose after all: a role's word inside a proper name ("the Desalination
    Plant", "the Futurist Society", "Council Member 1"), a member's number spelled out after a word
    in lower case ("each member first"), a quotation given to a person of the scenario."""
    if _SPELLED_NUMBER.search(text, start, end) and text[start].islower() and recipe not in _NAMING:
        return True
    if recipe == SELF_NAMED and quoted_speech(text, start, end):
        return True
    if term.kind not in (ROLE, PROFILE) or recipe not in (MID_SENTENCE, ANYWHERE, NUMBERED):
        return False
    return in_a_proper_name(text, start, end, next_word=recipe == MID_SENTENCE)


@functools.lru_cache(maxsize=8192)
def _key(term: BlindTerm) -> str:
    """What every way of writing ``term`` contains among its letters and digits: its longest run
    of letters (spelled-out numbers vary), or all of a research ID's code."""
    written = term.text.strip()
    if term.kind in (ROLE, PROFILE) and (labelled := _LABELLED.fullmatch(written)):
        written = labelled[1]  # "Debater A": any label ("Debater 1") names the role
    compact = compact_letters(reader_form(written)[0])[0]
    if term.kind == RESEARCH_ID:
        return compact
    if term.kind in (ROLE, PROFILE):  # a word of its own: "and" may stand between a role's words
        compact = " ".join(compact_letters(reader_form(word)[0])[0] for word in written.split())
    longest = max(re.findall(r"[^\W\d_]+", compact), key=len, default="")
    if term.kind in (ROLE, PROFILE) and len(longest) >= 6 and longest.endswith("er"):
        longest = longest[:-2]  # "implement": "Implementor" is looked for too (``term_pattern``)
    return longest if len(longest) >= (KEY_MIN if longest.isascii() else 2) else compact


@functools.lru_cache(maxsize=64)
def _plan(terms: tuple[BlindTerm, ...], reread: bool) -> dict[str, tuple[_Alternative, ...]]:
    """The terms of each recipe, longest first (``reread``: for the digits-for-letters reading,
    where a name with digits is read as written and left out)."""
    plan: dict[str, list[_Alternative]] = {}
    for term in terms:
        if term.kind == RESEARCH_ID or (reread and any(c.isdigit() for c in term.text)):
            continue  # research IDs: one pass for every scenario (``research_ids_in``)
        if (found := _alternative(term)) is not None:
            for alternative, recipes in [found, *_variants(term, found[0])]:
                for recipe in recipes:
                    plan.setdefault(recipe, []).append(alternative)
        if term.kind == MODEL:
            plan.setdefault(CLAIMED, []).extend(_line_word(word) for word in model_line_words(term.text))
        if term.kind in (ROLE, PROFILE):
            plan.setdefault(ABBREVIATED, []).extend(_abbreviation(a) for a in role_abbreviations(term.text))
    return {
        recipe: tuple(dict.fromkeys(sorted(alternatives, key=lambda a: (-len(a.term.text), a.term.text))))
        for recipe, alternatives in plan.items()
    }


# A context may name several agents ("[Reply · Moderator · Plant]", "my fellow team members (the
# plant and the monitor evaluator)") and a pattern's search goes on after its match: the names found
# are blanked and the contexts that can hold several run again near them, at most this many times.
_ROUNDS = 3
# what runs again near the names blanked: only the contexts that may name several at once
_CHAINING = {SELF_NAMED: CHAINED, CHAINED: CHAINED, TAGGED: TAGGED}


@functools.lru_cache(maxsize=64)
def _research_codes(terms: tuple[BlindTerm, ...]) -> dict[str, BlindTerm]:
    return {t.text.strip().casefold(): t for t in terms if t.kind == RESEARCH_ID and t.text.strip()}


def _form_spans(form: str, terms: tuple[BlindTerm, ...], reread: bool) -> list[tuple[int, int, BlindTerm]]:
    compact, places = compact_letters(form)
    around: dict[str, Windows] = {}  # each word's windows found once, for every recipe of its term
    plan = {
        recipe: (alternatives, _windows_of(compact, places, alternatives, len(form), around))
        for recipe, alternatives in _plan(terms, reread).items()
    }
    found: list[tuple[int, int, BlindTerm]] = [] if reread else research_ids_in(form, _research_codes(terms))
    if not reread:  # a name of one word in pieces ("Implemen ter", "Clau⏎de"): not a maker's, a strategy's
        pieces = [[t for t in terms if t.kind in kinds] for kinds in ((MODEL, WORD), (ROLE, PROFILE))]
        found += split_names(form, compact, places, *pieces)
    for _round in range(_ROUNDS):
        new = [
            (start, end, term)
            for recipe, (alternatives, windows) in plan.items()
            if windows
            for start, end, term in _recipe_spans(form, recipe, alternatives, windows)
            if end > start
        ]
        if not new:
            break
        found += new
        blanked = list(form)
        for start, end, _term in new:
            blanked[start:end] = BLANK * (end - start)  # neither a letter nor a mark: words stay apart
        form = "".join(blanked)
        near = windows_merged([(max(s - MARGIN, 0), min(e + MARGIN, len(form))) for s, e, _t in new])
        plan = {
            _CHAINING[recipe]: (alternatives, windows_within(windows, near))
            for recipe, (alternatives, windows) in plan.items()
            if recipe in _CHAINING
        }
    return found


def _windows_of(
    compact: str,
    places: list[int],
    alternatives: tuple[_Alternative, ...],
    size: int,
    around: dict[str, Windows],
) -> Windows:
    """Where any of ``alternatives`` may stand (see ``windows_around``), merged; ``around`` keeps
    each key's windows for the other recipes (a role is in up to three)."""
    for key in {_key(a.term) for a in alternatives} - around.keys():
        around[key] = windows_around(compact, places, key, size)
    return windows_merged([w for key in {_key(a.term) for a in alternatives} for w in around[key]])


def blind_spans(text: str, terms: Iterable[BlindTerm]) -> list[Span]:
    """Where ``text`` names a term of ``terms``, in order, without overlaps (a longer name
    wins over one inside it: "Debater A" over "Debater")."""
    catalogue = tuple(terms)
    found: list[Span] = []
    for form, places in readings(text, [t.text for t in catalogue if t.kind in (ROLE, PROFILE)]):
        hits = _form_spans(form, catalogue, reread=False)
        for unleet in digits_read_as_letters(form):
            hits += _form_spans(unleet, catalogue, reread=True)
        found += [Span(places[start], places[end - 1] + 1, t.text, t.kind) for start, end, t in hits]
    kept: list[Span] = []
    for span in sorted(found, key=lambda s: (s.start, -(s.end - s.start))):
        if not kept or span.start >= kept[-1].end:
            kept.append(span)
    return kept


def blind_terms_found(texts: list[str], terms: list[BlindTerm]) -> dict[int, list[str]]:
    """For each step (1-6) whose text names a term, the terms it names (first seen first)."""
    return blind_names_of(blind_steps_found(texts, terms))


StoredSpans = dict[str, list[list[object]]]  # {"2": [[start, end, kind, term], ...]}: JSON


def blind_steps_found(texts: list[str], terms: list[BlindTerm]) -> StoredSpans:
    """The spans of each step (1-6) whose text names a term, as stored with a response."""
    found: StoredSpans = {}
    for step, text in enumerate(texts, start=1):
        if spans := blind_spans(text, terms):
            found[str(step)] = [[s.start, s.end, s.kind, s.term] for s in spans]
    return found


def blind_names_of(found: StoredSpans) -> dict[int, list[str]]:
    """For each step of stored spans, the terms it names (first seen first)."""
    return {int(step): list(dict.fromkeys(str(span[3]) for span in spans)) for step, spans in found.items()}

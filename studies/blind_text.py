"""Text that would break the blind: a response naming a role, member profile, strategy,
condition or model of its study's catalogue ("As the Environmentalist, I ...", a
"[... · Moderator]" tag, "As GPT-4o, ..."). Pure: no database; the catalogue's terms come
from ``studies.selectors.study_blind_terms``.

The rule, for a term of the catalogue (case-insensitive, whole words: a match never starts
or ends inside a word):

- a **distinctive** term (it has a digit, a capital inside a word as in "TeamLLM" or
  "LLM Discussion", or letters that are not Latin, as a Chinese name), a **model**'s name and
  a word the admin adds when redacting match anywhere;
- a **role** or **member** of plain words ("Plant", "Implementer", "Creative Professional":
  what the model is told to be) matches where a text names itself by it: "as the/a/an/our
  Plant", "as an implementer," / "as the plant of the team", "I am (the) Moderator", "my role
  (as/is) ...", "作为…", "我是…", a speaker label at the start of a line ("Plant:",
  "**Plant**:"), or a bracketed tag ("[... · Moderator]", "(Moderator)");
- a **condition** or **strategy** of plain words ("single", "Single model": names the model
  is never told) matches only as a speaker label or a bracketed tag ("[single]",
  "Single model:"), so "a single plan" and "as a single, unified team" stay prose;
- a condition or strategy of three words or more ("Multi-Agent Debate") matches anywhere,
  "our multi agent debate" included: prose does not say it by chance;
- a **research ID** of one of the study's scenarios ("A07_FS10") matches anywhere;
- a role in Chinese ("作为一名未来学家", "执行者：") as a plain English role does, and anywhere
  when it has a letter or digit ("辩手A", "成员1");
- a **maker** of models ("Google", "阿里巴巴") where a text says who made it: "trained by
  Google", "Google trained me", "my developer is Google", "由阿里巴巴开发", "阿里巴巴开发了我";
- a role also where a text speaks of a teammate by it: "our moderator", "the other debater",
  "per the monitor-evaluator", "the plant's critique", "my fellow team members (the plant ...)";
- any plain term of several words with a capital after its first word also matches anywhere
  when written with the catalogue's own capitals ("our Creative Professional", not "a
  creative professional"; "Single model" is not such a term: a sentence may start so).
Ordinary prose ("plant trees", "the implementer of the plan", "a moderator of the forum") is
left alone. The text is read as a reader sees it (``core.text_forms.reader_form``: look-alike
letters, accents, invisible characters and letters set apart undone), and once more with digits
inside words read as letters ("G3mini").

Cost: the terms are looked for together, one pattern per context with every term of a kind as
an alternative, and only in windows around the places where one of their longest words stands
among the text's letters and digits: a text costs its length times the number of contexts, however
large the catalogue (bench/bench_blind_text.py).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from core.text_forms import reader_form

# Where a term comes from, as the held responses page names it.
ROLE, PROFILE, STRATEGY, CONDITION, MODEL = "role", "profile", "strategy", "condition", "model"
WORD = "word"  # a word an admin asks to redact as well: matched anywhere, as a model's name
# a scenario's code (the term's text): any research ID of that scenario ("A07_FS10") in a text
# names its condition and model
RESEARCH_ID = "research_id"
# a company that makes models ("Google", "阿里巴巴"): named where a text says who made it
# ("trained by Google", "由阿里巴巴开发"), which names the model; elsewhere it is prose
MAKER = "maker"
KINDS = (ROLE, PROFILE, STRATEGY, CONDITION, MODEL, WORD, RESEARCH_ID, MAKER)
BLIND_TEXT = "blind_text"  # the hold reason's code
MIN_TERM_LENGTH = 3  # shorter names (a condition's letter, "AI") would match too much

# A letter or digit of a script that spaces its words: a Latin name's boundary. Chinese and
# Japanese put no space between words ("我是ChatGPT，由OpenAI开发"): their letters end a name.
_UNSPACED = "\u2e80-\u2fff\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_WORD = rf"[^\W_{_UNSPACED}]"
_LETTER = rf"[^\W\d_{_UNSPACED}]"
_BEFORE = rf"(?<!{_WORD})"
_AFTER = rf"(?!{_WORD})"
_ARTICLE = r"(?:the|a|an|our|your|my)"
_SEPARATOR = r"(?:[·|•,:：/=]|\s[—–-])"
_OPEN, _CLOSE = r"[\[(【（{<«]", r"[\])】）}>»]"
_INSIDE = r"[^\])】）}>»\n]"  # a tag's other words
# what may stand around a speaker's name at the start of a line: a list's number or bullet,
# Markdown or HTML emphasis, quotes
_LIST = r"(?:\d{1,3}[.)]|[*_#>\-•])"
_OPEN_MARK = r"(?:<[a-z]{1,6}>|[*_\"'`“‘«<{\[(])"
_CLOSE_MARK = r"(?:</[a-z]{1,6}>|[*_\"'`”’»>}\])])"


# what an agent does to a teammate's words: "the moderator suggested", "our implementer argued"
_SPOKE = (
    r"(?:said|says|suggested|suggests|argued|argues|proposed|proposes|noted|notes|mentioned|pointed\s+out"
    r"|summari[sz]ed|summari[sz]es|claimed|claims|asked|asks|raised|concluded|stated|states|emphasi[sz]ed"
    r"|recommended|recommends|insisted|insists|observed|explained|added|countered|objected|replied|responded"
    r"|warned|cautioned|believes|thinks|wants|agreed|agrees|disagreed|disagrees)"
)
# a role's word in a compound or a phrase of prose: "plant-based diets", "environmentalist groups",
# "the plant manager", "the implementer of the plan"
_NOT_PROSE = (
    r"(?![\-‐‑]\w|\s+(?:groups?|movements?|organi[sz]ations?|activists?|communit(?:y|ies)|lobby|societ(?:y|ies)"
    r"|based|managers?|operators?|workers?|species|life|cells?|of)\b)"
)
_SAYS = r"(?:says|said|writes|wrote|asks|asked|replies|replied|adds|added|notes|responds|answers)"
# a word a speaker's label may carry before its colon: "Synthesizer summary:", "Plant's proposal:"
_LABEL_WORD = (
    r"(?:summary|notes?|proposals?|view|ideas?|perspective|contribution|response|answer|input|take|report"
    r"|plan|suggestions?|comments?|thoughts?)"
)


def _tags(name: str) -> tuple[str, ...]:
    """Where a text labels itself by a plain term (``name``: its pattern, in the group
    "name"), matched without regard to case. Marks around a name are bounded ({0,4}): the
    list and emphasis marks overlap ("*"), and unbounded runs made a line of stars take
    quadratic time per term."""
    return (
        # a speaker label opening a line: "Plant:", "**Moderator**:", "- **Futurist**：", "Plant says:",
        # "1. Plant: ...", "<b>Plant</b>:", '"Plant":', "Plant's proposal:", "Plant (me):", "Plant — ..."
        # "Plant (idea generator):", "Synthesizer summary:", "Plant → ...", "Plant> ..."
        rf"(?m:^)[ \t]*(?:{_LIST}[ \t]*){{0,3}}(?:{_OPEN_MARK}[ \t]*){{0,4}}{name}{_CLOSE_MARK}{{0,4}}"
        rf"(?:['’]s[ \t]+\w+|[ \t]*\([^)\n]{{1,40}}\)|[ \t]+{_LABEL_WORD})?(?:[ \t]+{_SAYS})?[ \t]*{_CLOSE_MARK}{{0,4}}"
        rf"[ \t]*(?:[:：→]|[ \t][—–-][ \t]|>[ \t])",
        # a heading or a line of its own: "### Plant", "**Implementer**", "## Implementer's notes"
        rf"(?m:^)[ \t]*(?:#{{1,6}}[ \t]*)?(?:{_OPEN_MARK}[ \t]*){{0,4}}{name}{_CLOSE_MARK}{{0,4}}"
        rf"(?:['’]s[ \t]+\w+|[ \t]+{_LABEL_WORD})?[ \t]*{_CLOSE_MARK}{{0,4}}[ \t]*(?m:$)",
        # a table's first cell: "| Plant | Floating nurseries |"
        rf"(?m:^)[ \t]*\|[ \t]*(?:{_OPEN_MARK}){{0,4}}{name}{_CLOSE_MARK}{{0,4}}[ \t]*\|",
        # a signature closing a line: "— Implementer"
        rf"(?m:^)[ \t]*[—–-]{{1,2}}[ \t]*{name}[ \t]*(?m:$)",
        # a bracketed tag: "[Reply · Step 1 · Moderator]", "(Moderator)", "【主持人】", "{Plant}", "«Plant»"
        rf"{_OPEN}(?:{_INSIDE}{{0,80}}?{_SEPARATOR}\s*)?{name}\s*(?:{_SEPARATOR}{_INSIDE}{{0,40}})?{_CLOSE}",
    )


def _self_naming(name: str, cased: str) -> tuple[str, ...]:
    """Where a text names itself by a plain role or member (``name`` as in ``_tags``; ``cased``:
    the same, written with the catalogue's capital first); each is matched without regard to
    case unless it uses ``cased``."""
    article = rf"(?:{_ARTICLE}|(?:the|our|this)\s+team['’]s)"
    return (
        # "As the Plant ...", "As Moderator, ...", "As the team's Futurist", with the catalogue's
        # capitals (case kept: "as a plant" is prose)
        rf"\bas\s+(?:{article}\s+)?{cased}{_AFTER}",
        # "as an environmentalist, we ...", "as an environmentalist I care", "as the plant of the
        # team", "as the moderator role" ("As a plant, the facility ..." is prose)
        rf"\b(?:as|being)\s+(?:{article}\s+)?{name}(?=\s*[,，]\s*(?:I|I['’]\w+|we|my|our|let['’]?s?|here|me)\b"
        rf"|\s+I\b|\s+(?:of|in|on|for)\s+(?:the|our|this)\s+team|\s+role)",
        # first person: "I am the Moderator", "I'm a futurist", "my role as Implementer", "I, the Moderator"
        rf"(?:\bI\s+am|\bI'm|\bmy\s+role\s+(?:as|is)|\bspeaking\s+as|\bI,)\s+(?:(?:the|a|an)\s+)?{name}{_AFTER}",
        # "Speaking from the Environmentalist perspective", "from my plant's point of view" ("from an
        # environmentalist perspective" is prose)
        rf"\bfrom\s+(?:my|our)\s+{name}(?:['’]s)?\s+(?:perspective|point\s+of\s+view|viewpoint|standpoint|angle|lens)",
        rf"\bfrom\s+(?:the|an?)\s+{cased}(?:['’]s)?\s+(?:perspective|point\s+of\s+view|viewpoint|standpoint|angle|lens)",
        # "I serve as the moderator", "I am playing the futurist", "wearing my futurist hat", "my plant role"
        rf"(?:\bI|\bI['’]m|\bI\s+am)\s+(?:now\s+)?(?:serv|act|play|work|speak|participat|function)(?:e|ing|s)?\s+"
        rf"(?:as\s+|in\s+the\s+role\s+of\s+)?(?:(?:the|a|an|our)\s+)?{name}{_AFTER}",
        rf"\bmy\s+{name}\s+(?:hat|persona|role|identity|perspective|lens|cap)\b",
        rf"\bwearing\s+(?:the|a|an|our)\s+{name}\s+(?:hat|cap)\b",
        # "Moderator here."
        rf"(?m:^)[ \t*_]*{name}[*_]*\s+here\b",
        # "My job as the team's implementer", "in the role of the implementer", "I was assigned the
        # plant role", "took on the role of Plant"
        rf"\bmy\s+(?:job|task|part|position|function|duty|place)\s+as\s+(?:{article}\s+)?{name}{_AFTER}",
        rf"\brole\s+of\s+(?:(?:the|a|an)\s+)?{name}{_AFTER}",
        rf"\bassigned\s+(?:to\s+be\s+|as\s+)?(?:(?:the|a|an)\s+)?{name}(?:\s+role)?{_AFTER}",
        # a teammate by role: "our moderator summarized", "the other debater claims", "per the monitor-evaluator's critique", "my fellow team members (the plant ...)"
        rf"\b(?:our|the\s+other|another|fellow)\s+{name}{_AFTER}{_NOT_PROSE}(?=['’]s\b|\s+(?:\w+\s+)?{_SPOKE}\b)",
        rf"\b(?:per|according\s+to)\s+(?:the\s+|our\s+)?{name}{_AFTER}{_NOT_PROSE}",
        # "As the moderator suggested", "I agree with the implementer"
        rf"\b(?:the|our)\s+{name}{_AFTER}\s+(?:just\s+|already\s+|also\s+|rightly\s+)?{_SPOKE}\b",
        rf"\b(?:agree|agreed|disagree|disagreed|concur|side)s?\s+with\s+(?:the|our|my)\s+{name}{_AFTER}{_NOT_PROSE}",
        rf"\bthe\s+{name}['’]s\s+(?:critique|proposal|point|argument|view|idea|suggestion|summary|rebuttal|objection|feedback|analysis|position|reply|response)s?\b",
        rf"\b(?:team\s*-?mates?|fellow\s+(?:team\s+)?members?|team\s+members?|colleagues?)\b[^.!?\n]{{0,60}}?\b{name}{_AFTER}"
        rf"(?=\s*(?:[,)\];:]|and\b|or\b|['’]s\b))",
        rf"我的(?:角色|身份|职责|任务|定位)\s*(?:是|为|[:：])\s*{_ZH_FILLER}{name}",
        rf"我[^，。！？\n]{{0,10}}?(?:扮演|担任|充当)(?:着|了)?\s*{_ZH_FILLER}{name}",
        rf"我(?:们)?(?:团队|小组)?的\s*{name}",
        # a teammate speaking at a clause's start: "主持人请大家总结" ("政策执行者认为" is prose)
        rf"(?:(?m:^)|(?<=[。！？!?；;，,：:]))\s*{name}\s*(?:请|建议|提出|认为|总结|指出|表示|说|强调|补充)",
        rf"本人(?:是|作为|身为|担任|扮演)\s*{_ZH_FILLER}{name}",
        rf"我(?:在团队中|在小组中|在本组中)?(?:负责|承担)\s*{name}\s*的?(?:工作|职责|部分|角色)",
        # "Role: Implementer", "my role: Implementer", "Persona: Futurist", "Role - Implementer", "Role = Moderator"
        rf"\b(?:role|persona|identity|character|speaker|agent|voice)\s*(?:[:：=]|[—–-]\s)\s*{name}{_AFTER}",
        # Chinese: at a clause's start ("政府作为协调者" is prose), or in the first person
        # ("，作为协调者，市政府应…" is prose: the first person follows a self-naming)
        rf"(?:(?m:^)|(?<=[。！？!?；;，,：:]))[ \t*_]*(?:作为|身为|担任|扮演)\s*{_ZH_FILLER}{name}(?=\s*[，,]?\s*(?:我|本人))",
        rf"我(?:是)[^，。！？\n]{{0,12}}?{name}(?=\s*(?:[，。！？,.!?；;：:\n]|$|的(?:身份|角色)))",
        rf"我(?:作为|身为|担任|扮演)[^，。！？\n]{{0,12}}?{name}",
        rf"以\s*{name}\s*的?身份(?=\s*[，,]?\s*(?:我|本人))",
        rf"从\s*{name}\s*的?(?:角度|视角|立场|观点)",
        # a signature: "Signed: Plant", "Regards, the Moderator", "Yours, Futurist"
        rf"\b(?:signed(?:\s+by)?|signature|regards|sincerely|yours|from)\s*[:：,，]?\s*(?:the\s+)?{name}{_AFTER}",
        *_tags(name),
    )


# Who speaks of itself before a maker: "I", "me", "my", "this model", "an AI assistant", "a large
# language model" ("AI systems developed by Google" in a scenario is prose)
_SELF = (
    r"(?:\bI\b|\bI['’]m\b|\bme\b|\bmy\b|\bthis\s+(?:model|assistant|AI)\b"
    r"|\ban?\s+(?:large\s+)?(?:AI\s+)?(?:assistant|language\s+model|chatbot|AI\s+model)\b)"
)
# "我是…由阿里巴巴开发", "本模型由…" ("我认为由百度开发的地图" is prose)
_ZH_SELF = r"(?:我是|我乃|本模型|本助手|该模型)"
# what may stand between 作为 and a role: "作为团队中的协调者", "作为一名未来学家"
_ZH_FILLER = r"(?:(?:我们)?(?:团队|小组|本组|本团队)(?:中|里)?的?)?\s*(?:一[名个位]|本)?\s*"


def _made_by(name: str) -> tuple[str, ...]:
    """Where a text says who made it: "I am ... trained by Google", "an assistant built by
    Moonshot", "developed by a team of researchers at Google", "a large language model from
    Google", "I am Google's AI assistant", "我是由阿里巴巴集团开发的", "我是百度研发的助手"."""
    made = r"(?:trained|developed|created|built|made|designed|released|provided|owned|powered)"
    return (
        rf"{_SELF}[^.!?\n]{{0,80}}?\b{made}\s+by\s+"
        rf"(?:(?:a\s+team\s+of\s+)?(?:researchers|engineers|the\s+team|the\s+engineers)\s+(?:at|of|from)\s+)?"
        rf"(?:the\s+)?{name}{_AFTER}",
        # "I'm a large language model from Google" ("I think the data from Google" is prose)
        rf"(?:\bI\s+am|\bI['’]m|\bthis\s+(?:model|assistant)|\bas)\s+(?:an?\s+)?(?:[\w-]+\s+){{0,3}}?"
        rf"(?:assistant|model|chatbot|AI|system)\s+from\s+(?:the\s+)?{name}{_AFTER}",
        # the maker as the subject, or named as mine: "Google trained me", "My developer is Google"
        rf"{name}\s+(?:trained|developed|created|built|made|designed|programmed|taught)\s+me\b",
        rf"\bmy\s+(?:developer|creator|maker|trainer|parent\s+company)s?\s+(?:is|are|was|were)\s+(?:the\s+)?{name}{_AFTER}",
        # "As Google's AI assistant", "As a Google-trained model", "I come from Google"
        rf"\bas\s+(?:an?\s+)?{name}['’]s\s+(?:AI|assistant|chatbot|(?:large\s+)?language\s+model|model)",
        rf"(?:\bas|\bI\s+am|\bI['’]m)\s+an?\s+{name}[\s\-‐]*(?:trained|developed|built|made|created|designed|powered)\b",
        rf"\bI\s+(?:come|came|originate|originated)\s+from\s+(?:the\s+)?{name}{_AFTER}",
        rf"{name}\s*(?:集团|公司|团队)?\s*(?:开发|训练|研发|打造|创建|推出)了我",
        rf"我的(?:开发者|创造者|开发商|研发者|训练者|开发公司|创建者)(?:是|为)\s*{name}",
        rf"\bI(?:\s+am|['’]m)\s+(?:the\s+)?{name}['’]s\s+(?:AI|assistant|chatbot|(?:large\s+)?language\s+model|model)",
        rf"{_ZH_SELF}[^。！？\n]{{0,20}}?由\s*{name}\s*(?:集团|公司|团队)?\s*(?:开发|训练|研发|打造|推出|创建|发布|提供)",
        rf"我是\s*{name}\s*(?:集团|公司)?\s*(?:开发|研发|训练|打造|推出)的",
        rf"我是\s*{name}\s*(?:集团|公司)?\s*的\s*(?:AI|人工智能)?\s*(?:助手|模型|大模型|语言模型|聊天机器人)",
        rf"我由\s*{name}\s*(?:集团|公司|团队)?\s*(?:开发|训练|研发|打造|推出|创建|发布|提供)",
        rf"{name}\s*(?:集团|公司)?\s*是我的(?:开发者|创造者|开发商|研发者|训练者|开发公司|创建者)",
        rf"(?:我|本模型|本助手|该模型)(?:来自|出自)\s*{name}",
    )


def _named_mid_sentence(cased: str) -> str:
    """A role or member written with the catalogue's capital inside a sentence ("Thanks,
    Futurist and Plant", "building on what the Environmentalist said"): prose writes the
    word in lower case there; a sentence's first word is left alone ("Plant trees ...")."""
    return rf"(?<=[^\W_]\s|[,;，、'’)\]]\s){cased}{_AFTER}"


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
_JOINT = r"[\s\-‐‑–_]*"


_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_ORDINALS = (
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


def _piece_pattern(piece: str) -> str:
    """One piece of a name: a small number may be written "#1", "No. 1", "one" or "first";
    Chinese letters may stand apart ("深度 求索")."""
    if piece.isdigit() and int(piece) <= 10:
        number = int(piece)
        spelled = "|".join(re.escape(w) for w in (_NUMBER_WORDS[number], _ORDINALS[number]) if w)
        return rf"(?:(?:#|No\.?|number)\s*)?(?:{re.escape(piece)}(?!\d)|(?:{spelled})\b)"
    if piece.isalpha() and not piece.isascii():
        return r"\s*".join(re.escape(char) for char in piece)
    return re.escape(piece)


def _term_pattern(text: str) -> str:
    words = [word for word in re.split(r"[\s\-‐‑–_]+", text.strip()) if word]
    parts = []
    for word in words:
        pieces = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+(?:\.\d+)?|[^\W\d_]+|\W", word)
        parts.append(
            _JOINT.join(_piece_pattern(piece) for piece in pieces)
            if "".join(pieces) == word
            else re.escape(word)
        )
    return _JOINT.join(parts)


Windows = list[tuple[int, int]]

# How each term is looked for: the terms of one recipe are looked for together, each context's
# pattern run once with all their names as alternatives (longest first), so that the cost of a text
# grows with the number of contexts and not with the size of the catalogue (hostile pass 9: a text
# made of the catalogue's own terms cost 18-30 s a megabyte when each term ran its own patterns).
_RESEARCH_IDS = "research_ids"  # a scenario's research IDs, anywhere
_MAKERS = "makers"  # a maker, where a text says who made it
_ANYWHERE = "anywhere"  # a distinctive name, a model's, a long strategy's, a word: anywhere
_SELF_NAMED = "self_named"  # a plain role or member: where a text names itself or a teammate by it
_TAGGED = "tagged"  # a plain condition or strategy: as a speaker label or a tag
_CAPITALS = "capitals"  # a plain term of several words with a capital after its first: so written
_MID_SENTENCE = "mid_sentence"  # a plain role with a capital first: so written inside a sentence
# a recipe's contexts, given the alternation of its names ("name") and of the same names written
# with the catalogue's capitals ("cased"); each uses one of them once; flags re.I unless said
_CONTEXTS: dict[str, Callable[[str, str], tuple[str, ...]]] = {
    _RESEARCH_IDS: lambda name, cased: (name,),
    _MAKERS: lambda name, cased: _made_by(name),
    _ANYWHERE: lambda name, cased: (name,),
    _SELF_NAMED: lambda name, cased: _self_naming(name, cased),
    _TAGGED: lambda name, cased: _tags(name),
    _CAPITALS: lambda name, cased: (cased,),
    _MID_SENTENCE: lambda name, cased: (_named_mid_sentence(cased),),
}


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


@functools.lru_cache(maxsize=8192)
def _alternative(term: BlindTerm) -> tuple[_Alternative, tuple[str, ...]] | None:
    """How ``term`` is looked for (its recipes), or None when it is too short to look for."""
    written = term.text.strip()
    if len(written) < (MIN_TERM_LENGTH if written.isascii() else 2):
        return None
    if term.kind == RESEARCH_ID:
        name = rf"(?P<{{group}}>[A-Z]{{{{1,2}}}}[0-9]{{{{2}}}}_{re.escape(written)})"
        return _Alternative(term, r"(?<![^\W_])", name, name, r"(?![^\W_])"), (_RESEARCH_IDS,)
    # Chinese puts no space between words: no boundary on a side where the term has a Chinese letter
    before = _BEFORE if written[0].isascii() else ""
    after = _AFTER if written[-1].isascii() else ""
    if term.kind == MODEL and after:
        after = rf"(?!{_LETTER})"  # a version may follow a model's name: "Gemini2.5", "Qwen3"
    core = _term_pattern(written)
    labelled = _LABELLED.fullmatch(written)
    if term.kind in (ROLE, PROFILE) and labelled:
        # "Debater A" of a debate: its other labels name a debater too ("Debater 1", "Debater C")
        core = rf"{_term_pattern(labelled[1])}{_JOINT}(?:(?-i:[A-Z])|[1-9](?!\d))"
    core = core.replace("{", "{{").replace("}", "}}")
    name = rf"(?P<{{group}}>{core})"
    # the catalogue's capital first ("As the Plant", "As Coordinator" for "Co-Ordinator"): prose
    # writes a role's word in lower case ("as a plant")
    cased = rf"(?-i:(?=[A-Z])){name}" if written[0].isupper() else rf"(?-i:{name})"
    found = _Alternative(term, before, name, cased, after)
    if term.kind == MAKER:
        return found, (_MAKERS,)
    several_words = len(re.split(r"[\s\-‐‑–_]+", written)) >= 3  # "Multi-Agent Debate": not prose
    # a role in Chinese letters alone ("执行者", "主持人") is prose elsewhere ("政策执行者"): only
    # where a text names itself by it, as a plain English role; with a letter or a digit
    # ("辩手A", "成员1") it names the agent anywhere
    chinese_role = term.kind in (ROLE, PROFILE) and not any(c.isascii() and c.isalnum() for c in written)
    # a short Chinese condition or strategy ("单一模型") is prose too ("不应依赖单一模型"); a long one
    # ("多智能体辩论") is not
    chinese_role = chinese_role or (
        term.kind in (STRATEGY, CONDITION)
        and not written.isascii()
        and len(written) < 5
        and not any(c.isascii() and c.isalnum() for c in written)
    )
    if (
        term.kind in (MODEL, WORD)
        or (term_is_distinctive(term.text) and not chinese_role)
        or (term.kind in (STRATEGY, CONDITION) and several_words)
    ):
        return found, (_ANYWHERE,)
    recipes = [_SELF_NAMED if term.kind in (ROLE, PROFILE) else _TAGGED]
    if any(word[0].isupper() for word in written.split()[1:]):  # "Creative Professional"
        recipes.append(_CAPITALS)
    if term.kind in (ROLE, PROFILE) and written[0].isupper():
        recipes.append(_MID_SENTENCE)
    return found, tuple(recipes)


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
    flags = 0 if recipe == _CAPITALS else re.I
    # a look at the next character first: where no name can start, no alternative is tried
    first = f"(?=[{_first_characters(alternatives)}])"
    contexts = _CONTEXTS[recipe](f"{first}(?:{name})", f"{first}(?:{cased})")
    return tuple(re.compile(context, flags) for context in contexts)


def _first_characters(alternatives: tuple[_Alternative, ...]) -> str:
    """A character class (its inside) of every character a name of ``alternatives`` may start with."""
    chars: set[str] = set()
    for alternative in alternatives:
        written = alternative.term.text.strip()
        first = re.match(r"\d+", written)
        if first and int(first[0]) <= 10:  # "#1", "No. 1", "number one", "first"
            number = int(first[0])
            chars |= {"#", "N", "n", *first[0][0], _NUMBER_WORDS[number][0], _ORDINALS[number][:1]}
        elif alternative.term.kind == RESEARCH_ID:
            chars |= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
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


# Words that may stand before a role's name written with its capital and still leave it a name:
# a sentence's opening or an address ("As Debater A", "Thanks, Futurist", "The Plant said");
# any other capitalised word before it makes it part of a proper name ("Desalination Plant").
_CLAUSE_WORDS = frozenset(
    [
        "as",
        "i",
        "the",
        "then",
        "thanks",
        "thank",
        "dear",
        "hi",
        "hello",
        "hey",
        "our",
        "my",
        "and",
        "but",
        "so",
        "now",
        "here",
        "from",
        "per",
        "to",
        "by",
        "with",
        "like",
        "unlike",
        "both",
        "also",
        "while",
        "when",
        "after",
        "before",
        "since",
        "because",
        "if",
        "what",
        "said",
        "says",
        "asked",
        "told",
        "let",
        "ok",
        "okay",
        "well",
        "yes",
        "no",
        "for",
        "in",
        "on",
        "at",
        "of",
        "or",
    ]
)
_WORD_BEFORE = re.compile(r"([^\W\d_]+)[ \t]+$")
_WORD_AFTER = re.compile(r"[ \t]+([^\W\d_]+)")
_SPELLED_NUMBER = re.compile("(?:" + "|".join(w for w in _NUMBER_WORDS + _ORDINALS if w) + ")$", re.I)


# a quotation closed and given to someone: '," says Maria', '” said the mayor', '", explains Li'
_GIVEN = re.compile(
    r"[^\"”\n]{0,160}[\"”]\s*[,，]?\s*(?:says|said|explains|explained|adds|added|notes|noted|writes|wrote"
    r"|asks|asked|recalls|recalled|insists|insisted|tells\s+us|told\s+us)\b"
)


def _quoted_speech(text: str, start: int, end: int) -> bool:
    """The name stands inside a quotation that the text gives to someone else ('"I am an
    environmentalist," says Maria'): a person of the scenario speaks, not the response."""
    line = text.rfind("\n", 0, start) + 1
    opened = text.count('"', line, start) % 2 == 1 or text.count("“", line, start) > text.count(
        "”", line, start
    )
    return opened and _GIVEN.match(text, end) is not None


def _prose(text: str, start: int, end: int, recipe: str, term: BlindTerm) -> bool:
    """A found name that is prose after all: a role's word inside a proper name ("the Desalination
    Plant", "the Futurist Society", "Council Member 1"), a member's number spelled out after a word
    in lower case ("each member first"), a quotation given to a person of the scenario."""
    if _SPELLED_NUMBER.search(text, start, end) and text[start].islower():
        return True
    if recipe == _SELF_NAMED and _quoted_speech(text, start, end):
        return True
    if term.kind not in (ROLE, PROFILE) or recipe not in (_MID_SENTENCE, _ANYWHERE):
        return False
    before = _WORD_BEFORE.search(text, max(start - 40, 0), start)
    if before and before[1][0].isupper() and before[1].lower() not in _CLAUSE_WORDS:
        return True
    after = _WORD_AFTER.match(text, end) if recipe == _MID_SENTENCE else None
    return bool(after and after[1][0].isupper() and after[1] != "I" and after[1].lower() not in _CLAUSE_WORDS)


# A term's patterns run only near where its longest word stands in the text's letters and digits
# (spaces and marks dropped, lower case): a text without the word costs one substring search per
# term, and a long text with it the matches of windows this wide around each place.
MARGIN = 400
_KEY_MIN = 3  # a shorter key (the "o" of "o1") would stand everywhere: the whole text is searched
# digits written for letters inside a word ("G3mini", "Cl4ude", "K1mi")
_LEET = str.maketrans("013457", "oieast")
_WORDS = re.compile(r"[^\W_]+")  # each word once: no pattern that backtracks inside a long word


def _compact(seen: str) -> tuple[str, list[int]]:
    """``seen``'s letters and digits in lower case, and where each stands in ``seen``."""
    lower = seen.lower()
    if len(lower) != len(seen):  # a letter whose lower case is longer ("İ"): one by one
        lower = "".join(c.lower() if len(c.lower()) == 1 else c for c in seen)
    places = [m.start() + i for m in _WORDS.finditer(lower) for i in range(m.end() - m.start())]
    return "".join(lower[i] for i in places), places


def _unleet(seen: str) -> str:
    """``seen`` with the digits of words that mix letters and digits read as letters (same length)."""

    def read(word: re.Match[str]) -> str:
        token = word[0]
        mixed = any(c.isdigit() for c in token) and sum(c.isalpha() for c in token) >= 2
        return token.translate(_LEET) if mixed else token

    return _WORDS.sub(read, seen)


@functools.lru_cache(maxsize=8192)
def _key(term: BlindTerm) -> str:
    """What every way of writing ``term`` contains among its letters and digits: its longest run
    of letters (spelled-out numbers vary), or all of a research ID's code."""
    written = term.text.strip()
    if term.kind in (ROLE, PROFILE) and (labelled := _LABELLED.fullmatch(written)):
        written = labelled[1]  # "Debater A": any label ("Debater 1") names the role
    compact = "".join(c for c in reader_form(written)[0].lower() if c.isalnum())
    if term.kind == RESEARCH_ID:
        return compact
    longest = max(re.findall(r"[^\W\d_]+", compact), key=len, default="")
    return longest if len(longest) >= (_KEY_MIN if longest.isascii() else 2) else compact


def _windows(compact: str, places: list[int], key: str, size: int) -> Windows:
    if len(key) < (_KEY_MIN if key.isascii() else 2):  # two Chinese letters are rare enough
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


@functools.lru_cache(maxsize=64)
def _plan(terms: tuple[BlindTerm, ...], reread: bool) -> dict[str, tuple[_Alternative, ...]]:
    """The terms of each recipe, longest first (``reread``: for the digits-for-letters reading,
    where a name with digits is read as written and left out)."""
    plan: dict[str, list[_Alternative]] = {}
    for term in terms:
        if reread and any(c.isdigit() for c in term.text):
            continue
        if (found := _alternative(term)) is not None:
            for recipe in found[1]:
                plan.setdefault(recipe, []).append(found[0])
    return {
        recipe: tuple(sorted(alternatives, key=lambda a: (-len(a.term.text), a.term.text)))
        for recipe, alternatives in plan.items()
    }


# A context may name several agents ("[Reply · Moderator · Plant]", "my fellow team members (the
# plant and the monitor evaluator)") and a pattern's search goes on after its match: the names found
# are blanked and the contexts that can hold several run again near them, at most this many times.
_ROUNDS = 3
_CHAINING = (_SELF_NAMED, _TAGGED, _MAKERS)
_BLANK = "\x00"  # neither a letter nor a mark: a blanked name keeps the words around it apart


def _form_spans(form: str, terms: tuple[BlindTerm, ...], reread: bool) -> list[tuple[int, int, BlindTerm]]:
    compact, places = _compact(form)
    plan = {
        recipe: (alternatives, _windows_of(compact, places, alternatives, len(form)))
        for recipe, alternatives in _plan(terms, reread).items()
    }
    found: list[tuple[int, int, BlindTerm]] = []
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
            blanked[start:end] = _BLANK * (end - start)
        form = "".join(blanked)
        near = _merged([(max(s - MARGIN, 0), min(e + MARGIN, len(form))) for s, e, _t in new])
        plan = {
            recipe: (alternatives, _within(windows, near))
            for recipe, (alternatives, windows) in plan.items()
            if recipe in _CHAINING
        }
    return found


def _merged(windows: Windows) -> Windows:
    merged: Windows = []
    for lo, hi in sorted(windows):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


def _within(windows: Windows, near: Windows) -> Windows:
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


def _windows_of(
    compact: str, places: list[int], alternatives: tuple[_Alternative, ...], size: int
) -> Windows:
    """Where any of ``alternatives`` may stand (see ``_windows``), merged."""
    return _merged([w for a in alternatives for w in _windows(compact, places, _key(a.term), size)])


def blind_spans(text: str, terms: Iterable[BlindTerm]) -> list[Span]:
    """Where ``text`` names a term of ``terms``, in order, without overlaps (a longer name
    wins over one inside it: "Debater A" over "Debater")."""
    seen, origins = reader_form(text)
    catalogue = tuple(terms)
    found = _form_spans(seen, catalogue, reread=False)
    if (unleet := _unleet(seen)) != seen:
        found += _form_spans(unleet, catalogue, reread=True)
    spans = sorted(
        (Span(origins[start], origins[end - 1] + 1, term.text, term.kind) for start, end, term in found),
        key=lambda s: (s.start, -(s.end - s.start)),
    )
    kept: list[Span] = []
    for span in spans:
        if not kept or span.start >= kept[-1].end:
            kept.append(span)
    return kept


def blind_terms_found(texts: list[str], terms: list[BlindTerm]) -> dict[int, list[str]]:
    """For each step (1-6) whose text names a term, the terms it names (first seen first)."""
    found: dict[int, list[str]] = {}
    for step, text in enumerate(texts, start=1):
        names = list(dict.fromkeys(span.term for span in blind_spans(text, terms)))
        if names:
            found[step] = names
    return found


@dataclass(frozen=True)
class BlindSegment:
    text: str
    kind: str = ""  # the term's kind where the segment names one, else ""
    term: str = ""


def blind_segments(text: str, terms: Iterable[BlindTerm]) -> list[BlindSegment]:
    """``text`` cut into plain and naming segments, for a page that highlights the names."""
    segments: list[BlindSegment] = []
    at = 0
    for span in blind_spans(text, terms):
        if span.start > at:
            segments.append(BlindSegment(text[at : span.start]))
        segments.append(BlindSegment(text[span.start : span.end], span.kind, span.term))
        at = span.end
    if at < len(text) or not segments:
        segments.append(BlindSegment(text[at:]))
    return segments


def blind_redact(text: str, terms: Iterable[BlindTerm], placeholder: str) -> str:
    """``text`` with every name of ``terms`` replaced by ``placeholder``."""
    for span in reversed(blind_spans(text, terms)):
        text = text[: span.start] + placeholder + text[span.end :]
    return text


# --- the catalogue's terms from apps above studies --------------------------------------
# An app above studies (generation: the roles its strategies give, the study's member
# profiles) registers a source when it is ready; studies calls it without importing the app.
TermSource = Callable[[Any], Iterable[BlindTerm]]
_sources: list[TermSource] = []


def blind_term_source_register(source: TermSource) -> TermSource:
    """Register ``source(study) -> terms`` (once per function, whatever the callers)."""
    if source not in _sources:
        _sources.append(source)
    return source


def blind_term_sources() -> tuple[TermSource, ...]:
    return tuple(_sources)

"""The contexts in which a text names itself or a teammate by a name of its study's catalogue ("As
the Plant, I", "[Turn 3 - Moderator]", "我作为主持人"; its maker: ``studies.blind_makers``), as regular
expressions around a name's pattern; and the signs that a name found is prose after all (a word of a
proper name, a quotation given to a person of the scenario). Pure; used by ``studies.blind_text``."""

from __future__ import annotations

import re

# A letter or digit of a script that spaces its words: a Latin name's boundary. Chinese and
# Japanese put no space between words ("我是ChatGPT，由OpenAI开发"): their letters end a name.
_UNSPACED = "\u2e80-\u2fff\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
# (case-sensitive: the same set either way, and a case-blind class of these ranges compiled twice as slowly)
_WORD = rf"(?-i:[^\W_{_UNSPACED}])"
_LETTER = rf"(?-i:[^\W\d_{_UNSPACED}])"
_BEFORE = rf"(?<!{_WORD})"
_AFTER = rf"(?!{_WORD})"
_ARTICLE = r"(?:the|a|an|our|your|my)"
# whose role it is, before it: "the team's", "our group's", "today's", "team" ("As team coordinator")
_OWNERS = r"(?:(?:the|our|this)\s+(?:team|group|panel|discussion)['’]s|today['’]s|team|group)"
_SEPARATOR = r"(?:[·|•,:：/=]|\s[—–-])"
_OPEN, _CLOSE = r"[\[(【（{<«〔〈《「『]", r"[\])】）}>»〕〉》」』]"
_INSIDE = r"[^\])】）}>»〕〉》」』\n]"  # a tag's other words
# what may stand around a speaker's name at the start of a line: a list's number or bullet (any
# sign: "💡 Plant:", "→ Plant:"), Markdown or HTML emphasis, quotes, a turn ("Turn 3 / Plant:")
_LIST = r"(?:\d{1,3}[.)]|[*_#>\-•]|[^\w\s:：])"
_TURN = r"(?:(?:turn|round|step)[ \t]*\d{1,3}(?:[ \t]*/[ \t]*\d{1,3})?[ \t]*[/|·:\-–—][ \t]*)"
_OPEN_MARK = r"(?:<[a-z]{1,6}>|[*_\"'`“‘«<{\[(])"
_CLOSE_MARK = r"(?:</[a-z]{1,6}>|[*_\"'`”’»>}\])])"


# what an agent does to a teammate's words: "the moderator suggested", "our implementer argued"
_SPOKE = (
    r"(?:said|says|suggested|suggests|argued|argues|proposed|proposes|noted|notes|mentioned|pointed\s+out"
    r"|summari[sz]ed|summari[sz]es|claimed|claims|asked|asks|raised|concluded|stated|states|emphasi[sz]ed"
    r"|recommended|recommends|insisted|insists|observed|explained|added|countered|objected|replied|responded"
    r"|flagged|flags|warned|warns|cautioned|believes|thinks|wants|agreed|agrees|disagreed|disagrees"
    r"|challenged|challenges|questioned|critiqued|rebutted|conceded|endorsed|stressed|weighed\s+in"
    r"|put\s+forward|pitched|pitches)"
)
# the same in the present for several ("both debaters agree")
_SPEAK = r"(?:agree|disagree|argue|say|suggest|propose|claim|note|think|believe|want|insist|conclude)"
# what an agent does to the team's work, said of our work ("the synthesizer merged our ideas";
# "the plant merged with a rival" is prose)
_WORKED = (
    r"(?:merged|merges|combined|combines|synthesi[sz]ed|synthesi[sz]es|drafted|drafts|outlined|refined"
    r"|revised|ranked|evaluated|assessed|reviewed|judged|summari[sz]ed|built\s+on|took|collected|weighed)"
    r"\s+(?:(?:all|both|each|some|most)\s+(?:of\s+)?)?(?:our|my|everyone['’]s)\s+(?:\w+\s+)?"
    r"(?:ideas?|proposals?|views?|inputs?|points?|arguments?|suggestions?|contributions?|answers?"
    r"|responses?|drafts?|solutions?|options?|thoughts?|perspectives?|positions?|critiques?|plans?)\b"
)
# what teammates do together, in a sentence that names two of them or their plural ("The futurist
# and the implementer disagree", "The debaters agreed")
TEAM_VERB = r"agree|agreed|disagree|disagreed|debated|argued|clashed|converged|reached\s+(?:a\s+)?consensus"
# one word that may describe a teammate before its role ("the team's creative plant", "our
# sceptical monitor"): not a word that joins or starts another phrase
_ADJECTIVE = r"(?:(?!(?:and|or|of|the|a|an|to|in)\b)[a-z]{3,15}\s+)?"
# a role's word in a compound or a phrase of prose: "plant-based diets", "environmentalist groups",
# "the plant manager", "the implementer of the plan"
_NOT_PROSE = (
    r"(?![\-‐‑]\w|\s+(?:groups?|movements?|organi[sz]ations?|activists?|communit(?:y|ies)|lobby|societ(?:y|ies)"
    r"|based|managers?|operators?|workers?|species|life|cells?|of)\b)"
)
# a role's word as what a job is about: "I am a plant engineer" (not "I am the moderator of")
_NOT_A_JOB = r"(?!\s+(?:engineer|manager|operator|worker|owner|biologist|scientist|designer)s?\b)"
# what a teammate's words are: "the plant's critique" ("the plant's response", "output": prose)
# a speaker for a role is one of the team: "on this team", or the first person right after ("a
# lobbyist speaking for the environmentalists" is prose)
_FOR_THE_TEAM = (
    r"(?=\s+(?:on|in|of|within)\s+(?:this|our|the)\s+(?:team|group|panel|discussion|debate)\b"
    r"|\s*[,，:：]\s*(?:I|I['’]\w+|we|my|our|let['’]?s?)\b)"
)
_ARGUED = r"(?:critique|proposal|argument|suggestion|rebuttal|objection|counterargument|concern|request|instruction)s?\b"
# the first person soon after: a teammate is spoken of to the team ("As the moderator suggested, we
# vote"; "In 1970 the futurist warned that cities would float" is prose)
_WE_AFTER = r"(?=[^.!?\n]{0,80}\b(?:we|our|us|I|me|my|let['’]s)\b)"
# how a teammate spoke: "the moderator just summarised", "our plant rightly noted"
_ADVERB = r"(?:just|already|also|rightly|then|again|now|quickly|briefly|firmly|strongly)\s+"
_SAYS = r"(?:says|said|writes|wrote|asks|asked|replies|replied|adds|added|notes|responds|answers)"
# what an agent's name may carry: "Moderator Bot", "PlantAgent" (read apart)
_AGENT = r"(?:bot|agent|ai|llm|gpt|assistant|persona)"
# a word a speaker's label may carry before its colon: "Synthesizer summary:", "Plant's proposal:"
_LABEL_WORD = (
    r"(?:summary|notes?|proposals?|view|ideas?|perspective|contribution|response|answer|input|take|report"
    r"|plan|suggestions?|comments?|thoughts?|verdict|remarks?|statement|conclusions?|recommendations?"
    r"|reply|opinion|feedback|" + _AGENT + ")"
)
# what may stand between 作为 and a role: "作为团队中的协调者", "作为一名未来学家"
_ZH_FILLER = r"(?:(?:我们)?(?:团队|小组|本组|本团队)(?:中|里)?的?)?\s*(?:一[名个位]|本)?\s*"
# the second half of a compound after a dash ("Plant—based meals"): no speaker's label
_COMPOUND = r"(?:based|free|like|style|friendly|related|driven|led|owned|powered|rich|heavy|scale|level)\b"
# which of a speaker's contributions: "Moderator final answer", "Moderator's closing remark" (hostile pass 24)
_STAGE = r"(?:final|closing|opening|initial|first|second|third|last|revised|updated|short|brief)"


def tags(name: str) -> tuple[str, ...]:
    """Where a text labels itself by a plain term (``name``: its pattern, in the group
    "name"), matched without regard to case. Marks around a name are bounded ({0,4}): the
    list and emphasis marks overlap ("*"), and unbounded runs made a line of stars take
    quadratic time per term."""
    return (
        # a speaker label opening a line: "Plant:", "**Moderator**:", "- **Futurist**：", "Plant says:",
        # "1. Plant: ...", "<b>Plant</b>:", '"Plant":', "Plant's proposal:", "Plant (me):", "Plant — ..."
        # "Plant (idea generator):", "Synthesizer summary:", "Plant → ...", "Plant> ..."
        # "💡 Plant:", "Plant 🌱:", "Plant, turn 3:", "Turn 3 / Plant:", "Plant =", "Plant |"
        rf"(?m:^)[ \t]*(?:{_LIST}[ \t]*){{0,3}}{_TURN}?(?:{_OPEN_MARK}[ \t]*){{0,4}}{name}{_CLOSE_MARK}{{0,4}}"
        rf"(?:['’]s(?:[ \t]+\w+){{1,3}}|[ \t]*\([^)\n]{{1,40}}\)|(?:[ \t]+{_STAGE})?[ \t]+{_LABEL_WORD}|[ \t]*[^\w\s:：|=]{{1,3}}"
        rf"|[ \t]*,[ \t]*(?:turn|round|step)[ \t]*\d{{1,3}})?(?:[ \t]+{_SAYS})?[ \t]*{_CLOSE_MARK}{{0,4}}"
        rf"[ \t]*(?:[:：→=|]|[ \t][—–-][ \t]|>[ \t]|[—–](?=[ \t]*\w)(?!{_COMPOUND})|--|~[ \t](?![ \t]*\d))",
        # a heading or a line of its own: "### Plant", "**Implementer**", "## Implementer's notes", "## 🌱 Plant"
        rf"(?m:^)[ \t]*(?:#{{1,6}}[ \t]*(?:[^\w\s#][ \t]*){{0,3}})?{_TURN}?(?:{_OPEN_MARK}[ \t]*){{0,4}}{name}{_CLOSE_MARK}{{0,4}}"
        rf"(?:['’]s(?:[ \t]+{_STAGE})?[ \t]+\w+|(?:[ \t]+{_STAGE})?[ \t]+{_LABEL_WORD})?[ \t]*{_CLOSE_MARK}{{0,4}}(?:[ \t]*\((?:turn|round|step)[^)\n]{{0,20}}\))?[ \t]*(?m:$)",
        # a table's cell: "| Plant | Floating nurseries |", "| 1 | **Implementer** |"
        rf"(?<=[|｜])[ \t]*(?:{_OPEN_MARK}){{0,4}}{name}{_CLOSE_MARK}{{0,4}}[ \t]*(?=[|｜]|[ \t]*(?m:$))",
        # a signature closing a line: "— Implementer"
        rf"(?m:^)[ \t]*[—–-]{{1,2}}[ \t]*(?:(?:the|your|our)[ \t]+)?{name}[ \t]*(?m:$)",
        # a bracketed tag: "[Reply · Step 1 · Moderator]", "(Moderator)", "【主持人】", "{Plant}", "«Plant»"
        rf"{_OPEN}(?:{_INSIDE}{{0,80}}?{_SEPARATOR}\s*)?{name}(?:[ \t]+{_AGENT})?\s*(?:{_SEPARATOR}{_INSIDE}{{0,40}})?{_CLOSE}",
    )


def teammates_listed(name: str) -> str:
    """Teammates named in a list: "my fellow team members (the plant and the monitor evaluator)"."""
    return (
        rf"\b(?:team\s*-?mates?|fellow\s+(?:team\s+)?members?|team\s+members?|colleagues?)\b[^.!?\n]{{0,60}}?\b{name}{_AFTER}"
        rf"(?=\s*(?:[,)\];:]|and\b|or\b|['’]s\b))"
    )


# what a name found is blanked with before the contexts that may name several run again
BLANK = "\x00"


def listed_after(name: str) -> tuple[str, ...]:
    """A further name of a list that began with a name found and blanked: "Written by a futurist,
    an environmentalist and a startup founder" (with a list word before or after it: "As the Plant,
    the plant grows" is prose)."""
    return (
        rf"{BLANK}+[ \t]*(?:,[ \t]*)?(?:and|&)[ \t]+(?:an?|the|our)[ \t]+{name}{_AFTER}",
        rf"{BLANK}+[ \t]*,[ \t]*(?:an?|the|our)[ \t]+{name}{_AFTER}(?=[ \t]*(?:,|and\b|&))",
    )


def chaining(name: str) -> tuple[str, ...]:
    """The contexts that may name several agents at once ("[Reply · Moderator · Plant]", a list of
    teammates, a list after a name): run again once the names they found are blanked."""
    return (teammates_listed(name), *listed_after(name), *tags(name))


def self_naming(name: str, cased: str) -> tuple[str, ...]:
    """Where a text names itself by a plain role or member (``name`` as in ``_tags``; ``cased``:
    the same, written with the catalogue's capital first); each is matched without regard to
    case unless it uses ``cased``."""
    article = rf"(?:{_ARTICLE}|{_OWNERS})"
    return (
        # "As the Plant ...", "As Moderator, ...", "As the team's Futurist", with the catalogue's
        # capitals (case kept: "as a plant" is prose)
        rf"\bas\s+(?:{article}\s+)?{cased}{_AFTER}",
        # "as an environmentalist, we ...", "as an environmentalist I care", "as the plant of the
        # team", "as the moderator role" ("As a plant, the facility ..." is prose)
        rf"\b(?:as|being)\s+(?:{article}\s+{_ADJECTIVE})?{name}(?=\s*[,，]\s*(?:I|I['’]\w+|we|my|our|let['’]?s?|here|me)\b"
        rf"|\s+I\b|\s+(?:of|in|on|for)\s+(?:the|our|this)\s+(?:team|discussion|debate|group|session|round|panel"
        rf"|conversation)\b[^.!?\n]{{0,40}}?[,，]\s*(?:I|I['’]\w+|we|let['’]?s?)\b|\s+role)",
        # "As the plant, the ideas are ...", "As member 1, ...", "1. As the futurist," at a clause's start
        # and with a comma right after (hostile pass 17; "As a plant, the facility ..." and "such as the
        # plant, the dam" are prose)
        rf"(?:(?m:^)|(?<=[.!?;:。！？；：]))[ \t]*(?:{_LIST}[ \t]*){{0,2}}as\s+"
        rf"(?:(?:the|our|your|my|{_OWNERS})\s+{_ADJECTIVE})?"
        rf"{name}{_AFTER}\s*[,，]",
        # "As the designated moderator, ...", "my take as resident futurist"
        rf"\bas\s+(?:(?:the|our|your|my)\s+)?(?:designated|appointed|assigned|resident|acting|official)\s+{name}{_AFTER}",
        # "I, as moderator, will ...", "Me, the moderator, ...", "It falls to me, the moderator",
        # "This is the environmentalist speaking.", "The moderator (me) summarizes"
        rf"\bI\s*,\s*as\s+(?:{article}\s+)?{name}{_AFTER}",
        rf"\bme\s*,\s*(?:the|your|our)\s+{name}{_AFTER}",
        rf"\bthis\s+is\s+(?:the|your|our)\s+{name}\s+(?:speaking|here|talking|writing)\b",
        rf"{name}\s*\(\s*(?:me|myself|that['’]s\s+me|i\.e\.\s+me)\s*\)",
        rf"\bplaying\s+the\s+(?:part|role)\s+of\s+(?:the\s+)?{name}{_AFTER}",
        # "I was asked to play the environmentalist", "In character as the futurist:" (hostile pass 16)
        # (by the speaker, and the name ending the clause: "we were told to be an environmentalist
        # country" is prose)
        rf"\bI(?:\s+was|\s+am|['’]m|['’]ve\s+been|\s+have\s+been)?\s+(?:\w+\s+)?(?:asked|told|instructed|chosen"
        rf"|prompted|here|meant|supposed)\s+to\s+(?:play|be|act\s+as|serve\s+as)\s+"
        rf"(?:the\s+(?:part|role)\s+of\s+)?(?:(?:the|a|an|our)\s+)?{name}{_AFTER}(?=\s*(?:[.,;:!?，。；：)]|$))",
        rf"\bin\s+character\s+as\s+(?:(?:the|a|an)\s+)?{name}{_AFTER}",
        # first person: "I am the Moderator", "I'm a futurist", "my role as Implementer", "I, the Moderator"
        rf"(?:\bI\s+am|\bI['’]m|\bmy\s+role\s+(?:as|is)|\bspeaking\s+as|\bI,)\s+"
        rf"(?:(?:the|a|an|your|our|this)\s+|(?:the|our|this)\s+team['’]s\s+{_ADJECTIVE})?{name}{_AFTER}{_NOT_A_JOB}",
        # "Speaking from the Environmentalist perspective", "from my plant's point of view" ("from an
        # environmentalist perspective" is prose)
        rf"\bfrom\s+(?:my|our)\s+{name}(?:['’]s)?\s+(?:perspective|point\s+of\s+view|viewpoint|standpoint|angle|lens)",
        rf"\bfrom\s+(?:the|an?)\s+{cased}(?:['’]s)?\s+(?:perspective|point\s+of\s+view|viewpoint|standpoint|angle|lens)",
        # "I serve as the moderator", "I am playing the futurist", "wearing my futurist hat", "my plant role"
        rf"(?:\bI|\bI['’]m|\bI\s+am)\s+(?:now\s+)?(?:serv|act|play|work|speak|participat|function)(?:e|ing|s)?\s+"
        rf"(?:as\s+|in\s+the\s+role\s+of\s+)?(?:(?:the|a|an|our)\s+)?{name}{_AFTER}",
        rf"\bmy\s+{name}\s+(?:hat|persona|role|identity|perspective|lens|cap)\b",
        rf"\bwearing\s+(?:the|a|an|our)\s+{name}\s+(?:hat|cap)\b",
        # "Moderator here.", "Coordinator out." (a line of its own: "Plant out the seedlings" is prose)
        rf"(?m:^)[ \t*_]*{name}[*_]*\s+here\b",
        rf"(?m:^)[ \t*_]*{name}[*_]*\s+(?:out|over|signing\s+off)[ \t]*[.!]?[ \t]*(?m:$)",
        # a teammate spoken to or of at a line's start: "Implementer, could you draft ...", "Plant and
        # I agree", "@Futurist", "Re: Futurist's idea"
        rf"(?m:^)[ \t*_]*{cased}[ \t]*[,，][ \t]*(?:could|can|would|will|please|do|did|what|how|why|your|you)\b",
        rf"(?m:^)[ \t*_]*(?:the[ \t]+)?{cased}[ \t]+and[ \t]+I\b",
        rf"(?<![\w@.])@[ \t]?{name}{_AFTER}",
        rf"\bre[ \t]*[:：][ \t]*(?:the[ \t]+)?{name}['’]s\b",
        # "My job as the team's implementer", "in the role of the implementer", "I was assigned the
        # plant role", "took on the role of Plant"
        rf"\bmy\s+(?:job|task|part|position|function|duty|place)\s+as\s+(?:{article}\s+)?{name}{_AFTER}",
        rf"\brole\s+of\s+(?:(?:the|a|an)\s+)?{name}{_AFTER}",
        rf"\bassigned\s+(?:to\s+be\s+|as\s+)?(?:(?:the|a|an)\s+)?{name}(?:\s+role)?{_AFTER}",
        # a teammate by role: "our moderator summarized", "the other debater claims", "per the monitor-evaluator's critique", "my fellow team members (the plant ...)"
        rf"\b(?:our|the\s+other|another|fellow)\s+{_ADJECTIVE}{name}{_AFTER}(?:\s+{_AGENT}\b)?{_NOT_PROSE}"
        rf"(?=['’]s\s+{_ARGUED}|\s+(?:\w+\s+)?(?:{_SPOKE}\b{_WE_AFTER}|{_WORKED}))",
        # "Our futurist suggests", "Team member three suggested", "The futurist in our team suggests",
        # "The environmentalist objected.", "The moderator summarised it." (hostile pass 17: a teammate
        # in the first person's team, or a terse report of what a role did)
        rf"\b(?:our|team|my\s+fellow|(?:the|our)\s+(?:team|group)['’]s)\s+{_ADJECTIVE}{name}{_AFTER}(?:\s+{_AGENT}\b)?{_NOT_PROSE}"
        rf"\s+(?:{_ADVERB})?(?:{_SPOKE}|{_WORKED})\b",
        rf"\b(?:the|our)\s+{_ADJECTIVE}{name}{_AFTER}\s+(?:in|of|on|from|within)\s+(?:our|my|this)\s+"
        rf"(?:team|group|panel|discussion|debate)\b",
        rf"\bthe\s+{name}{_AFTER}\s+(?:{_ADVERB})?{_SPOKE}(?:\s+(?:it|this|that|so|too|again|first))?"
        rf"\s*(?:[.!;]|\Z)",
        # "From my perspective as an environmentalist", "My take, as the environmentalist:", "Building on
        # the futurist's idea", "The futurist's view:" (hostile pass 18)
        rf"\bmy\s+(?:take|view|perspective|position|opinion|answer|proposal|contribution|input|thoughts?|stance)"
        rf"\s*,?\s+as\s+(?:{article}\s+)?{name}{_AFTER}",
        rf"\b(?:building|build|built|expanding|following\s+up)\s+(?:up)?on\s+(?:the|our|my)\s+{name}['’]s\b",
        rf"(?m:^)[ \t*_#>\-]*the\s+{name}['’]s\s+(?:\w+\s+){{0,2}}\w+[*_]*\s*[:：]",
        rf"\b(?:per|according\s+to)\s+(?:the\s+|our\s+)?{name}{_AFTER}{_NOT_PROSE}{_WE_AFTER}",
        # "As the moderator suggested, we ...", "I agree with the implementer"
        rf"\b(?:the|our)\s+(?:team['’]s\s+)?{_ADJECTIVE}{name}{_AFTER}(?:\s+{_AGENT}\b)?\s+(?:just\s+|already\s+|also\s+|rightly\s+)?"
        rf"(?:{_SPOKE}\b{_WE_AFTER}|{_WORKED})",
        rf"\b(?:agree|agreed|disagree|disagreed|concur|side)s?\s+with\s+(?:the|our|my)\s+{name}{_AFTER}{_NOT_PROSE}",
        rf"\bthe\s+{name}['’]s\s+{_ARGUED}",
        # a role with its capital opening a line as the label of what it gave, or the reader's with
        # its capital: "Synthesizer's summary follows.", "Your Implementer will handle it" (hostile pass
        # 24; "Plant's response to drought is slow" and "your local moderator said" are prose)
        rf"(?m:^)[ \t*_#>\-]*{cased}['’]s\s+(?:{_STAGE}\s+)?(?:{_LABEL_WORD}\b|{_ARGUED})[*_]*[ \t]*"
        rf"(?:[:：]|(?m:$)|follows\b|below\b|is\s+as\s+follows\b)",
        rf"\byour\s+{_ADJECTIVE}{cased}{_AFTER}\s+(?:will|would|can|shall|is\s+going\s+to|(?:{_ADVERB})?{_SPOKE}\b)",
        # "The second debater disagreed", "the first debater argued" (hostile pass 13)
        rf"\bthe\s+(?:first|second|third|fourth|other|last)\s+{name}{_AFTER}\s+(?:\w+\s+)?(?:{_SPOKE}\b|{_WORKED})",
        teammates_listed(name),
        rf"我的(?:角色|身份|职责|任务|定位)\s*(?:是|为|[:：])\s*{_ZH_FILLER}{name}",
        rf"我[^，。！？\n]{{0,10}}?(?:扮演|担任|充当)(?:着|了)?\s*{_ZH_FILLER}{name}",
        rf"我(?:们)?(?:的)?(?:团队|小组)(?:中|里)?的\s*{name}",
        # a teammate's words taken up: "执行者说：", "感谢协调者的总结", "同意智多星的观点", "正如监督评估者所说"
        rf"(?:(?m:^)|(?<=[。！？!?；;，,：:]))[ \t*_]*{name}\s*(?:说|发言|表示|指出|补充|总结)\s*[：:]",
        rf"(?:感谢|谢谢)\s*{name}\s*的?(?:总结|发言|建议|观点|意见|分析|补充|提议|分享)",
        rf"(?:同意|赞同|支持|附和|认同|反对)\s*{name}\s*的?(?:观点|看法|意见|建议|提议|方案|说法)",
        rf"正如\s*{name}\s*(?:所说|所言|所指出|所提到|指出|提到)",
        # a teammate speaking to the team at a clause's start: "主持人请大家总结" ("未来学家认为，…" and
        # "主持人表示…" are prose)
        rf"(?:(?m:^)|(?<=[。！？!?；;，,：:]))\s*{name}\s*请\s*(?:大家|各位|我们|诸位)",
        # "我这个主持人", "轮到我这个主持人总结了", "本主持人认为", "笔者作为一名环保主义者", "我充任主持人",
        # "我站在环保主义者的立场看"
        rf"我这(?:个|位|名)\s*{name}",
        # "我以环保主义者的身份发言", "以我未来学家的视角", "站在环保主义者的角度", "我们的未来学家提出了",
        # "根据监督评估者的意见", "创意专业人士的观点：", "执行者提出了时间表", "成员三的建议" (hostile pass 18)
        rf"我以\s*{name}\s*的?身份",
        rf"以我(?:这个|作为)?\s*{name}\s*的?(?:视角|角度|立场|身份|观点)",
        rf"站在\s*{name}\s*的?(?:立场|角度|视角)",
        rf"我们(?:团队|小组)?(?:中|里)?的\s*{name}\s*(?:提出|认为|建议|指出|说|表示|总结|补充|提议)",
        rf"(?:根据|按照|依据|参考)\s*{name}\s*的(?:意见|建议|观点|反馈|评估|总结|提议)",
        rf"(?:(?m:^)|(?<=[。！？!?；;，,：:]))[ \t*_#>\-]*{name}\s*的\s*(?:最终)?(?:观点|意见|建议|方案|总结|发言|回答|答案|提议|看法|想法|创意|计划|评估|分析|担忧|顾虑|质疑|批评)"
        rf"(?=\s*(?:[：:]|很好|不错|是|很有|值得))",
        rf"(?:(?m:^)|(?<=[。！？!?；;，,：:]))[ \t*_]*{name}\s*(?:提出了|提议|补充道|总结道|回应道)",
        rf"(?:(?m:^)|(?<=[。！？!?；;，,：:]))\s*本\s*{name}(?=\s*(?:认为|建议|提出|总结|宣布|在此|觉得))",
        rf"(?:笔者|在下|本人)\s*(?:作为|身为|担任)\s*{_ZH_FILLER}{name}",
        rf"我[^，。！？\n]{{0,4}}站在\s*{name}\s*的?(?:立场|角度|视角)",
        rf"本人(?:是|作为|身为|担任|扮演)\s*{_ZH_FILLER}{name}",
        rf"我(?:在团队中|在小组中|在本组中)?(?:负责|承担)\s*{name}\s*的?(?:工作|职责|部分|角色)",
        # "Role: Implementer", "my role: Implementer", "Persona: Futurist", "Role - Implementer", "Role = Moderator",
        # "Role—Implementer", "<role>Implementer</role>" (hostile pass 26)
        rf"\b(?:role|persona|identity|character|speaker|agent|voice)\s*(?:[:：=]|[—–]|-\s)\s*{name}{_AFTER}",
        rf"<\s*(?:role|persona|speaker|agent|author|character|voice)\b[^<>\n]{{0,40}}>\s*{name}{_AFTER}",
        # a role as the speaker's capacity, persona or part of the team: "In my implementer capacity",
        # "I, acting as environmentalist,", "Taking on the futurist persona", "the startup founder among
        # us", "the environmentalist member," (hostile pass 26; "growth in our plant capacity", "the
        # plant member states" and "the environmentalist member of parliament" are prose)
        rf"\bin\s+my\s+{name}\s+(?:capacity|role|persona)\b",
        rf"\bI\s*,\s*(?:acting|serving|speaking|working)\s+as\s+(?:{article}\s+)?{name}{_AFTER}",
        rf"\b(?:taking\s+on|adopting|assuming|playing|wearing|in)\s+(?:the|my|this)\s+{name}\s+(?:persona|hat|character)\b",
        rf"\b(?:the|our)\s+{_ADJECTIVE}{name}{_AFTER}\s+among\s+us\b",
        rf"\b(?:the|our)\s+{name}\s+(?:member|teammate)\b(?!\s+states\b)(?=\s*[,.;:!?)]|\s+(?:{_ADVERB})?{_SPOKE}\b)",
        # a teammate's ruling or work after "our": "Per our moderator's ruling", "prepared by our
        # coordinator" (hostile pass 26; "per our agreement" and "the coordinator of the agency" are prose)
        rf"\bour\s+{_ADJECTIVE}{name}['’]s\s+(?:{_ARGUED}|ruling|decision|verdict|summary|ideas?|views?|plan|input|take)",
        rf"\b(?:prepared|written|drafted|compiled|authored|summari[sz]ed)\s+by\s+(?:our|{_OWNERS})\s+{_ADJECTIVE}{name}{_AFTER}"
        rf"{_NOT_PROSE}(?!\s+(?:at|in|from|for)\b)",
        # Chinese: at a clause's start ("政府作为协调者" is prose), or in the first person
        # ("，作为协调者，市政府应…" is prose: the first person follows a self-naming)
        rf"(?:(?m:^)|(?<=[。！？!?；;，,：:]))[ \t*_]*(?:作为|身为|担任|扮演)\s*[^，。！？\n]{{0,10}}?{name}"
        rf"(?=\s*[，,]?\s*(?:我|本人)|\s*[，,。.：:]?\s*\Z)",
        rf"我(?:是)[^，。！？\n]{{0,12}}?{name}(?=\s*(?:[，。！？,.!?；;：:\n]|$|的(?:身份|角色)))",
        rf"我(?:作为|身为|担任|扮演|充任|充当)[^，。！？\n]{{0,12}}?{name}",
        rf"以\s*{name}\s*的?身份(?=\s*[，,]?\s*(?:我|本人))",
        rf"从\s*{name}\s*的?(?:角度|视角|立场|观点)",
        # a credit line: "Written by a futurist, an environmentalist and ..." (a sentence's start:
        # "a report written by a futurist" is prose); "Speaking for the environmentalist on this team"
        rf"(?:(?m:^)|(?<=[.!?。！？]))[ \t*_#>\-]*(?:written|authored|prepared|drafted|composed|produced)"
        rf"\s+(?:jointly\s+|together\s+)?by\s+(?:{article}\s+)?{name}{_AFTER}",
        rf"\bspeaking\s+(?:for|on\s+behalf\s+of)\s+(?:{article}\s+)?{name}{_AFTER}{_FOR_THE_TEAM}",
        # a role with its capital opening a sentence, then what it said: "Implementer objected that",
        # "Plant suggested floating farms." (hostile pass 19; "Plant trees" is prose); "据执行者所说",
        # "我同意执行者。"
        rf"(?:(?m:^)|(?<=[.!?])\s)[ \t*_]*{cased}{_AFTER}\s+(?:{_ADVERB})?{_SPOKE}\b",
        rf"据\s*{name}\s*(?:所说|所言|说)",
        rf"我(?:同意|赞同|支持|反对)\s*{name}(?=\s*(?:[。，,.！!；;]|\Z|的))",
        # a teammate's work as a label: "Critique by the monitor evaluator:" (hostile pass 19)
        rf"\b(?:critique|evaluation|review|assessment|summary|proposal|analysis|input|notes?)\s+(?:by|from)\s+"
        rf"(?:the|our)\s+{name}{_AFTER}(?=\s*[:：])",
        # a signature: "Signed: Plant", "Regards, the Moderator", "Yours, Futurist"
        rf"\b(?:signed(?:\s+by)?|signature|regards|sincerely|yours|from)\s*[:：,，]?\s*(?:the\s+)?{name}{_AFTER}",
        *tags(name),
    )


def spoken_of_together(plural: str) -> tuple[str, ...]:
    """Teammates spoken of by their role's plural ("both debaters agreed", "the other plants
    argued", "Speaking for the environmentalists on this team"): ``plural`` the role's pattern with
    its plural ending."""
    return (
        rf"\b(?:both|the\s+two|the\s+three|the\s+four|the\s+other|all\s+(?:the\s+)?|my\s+fellow|our|fellow)"
        rf"\s+{_ADJECTIVE}{plural}{_NOT_PROSE}\s+(?:\w+\s+)?(?:{_SPOKE}\b|{_WORKED}|{_SPEAK}\b)",
        # "The debaters agreed", "the implementers disagree" (hostile pass 20)
        rf"\bthe\s+{plural}{_NOT_PROSE}\s+(?:{TEAM_VERB})\b",
        rf"\bspeaking\s+(?:for|on\s+behalf\s+of)\s+(?:(?:the|us|our|all\s+the|both)\s+)?{plural}{_AFTER}{_FOR_THE_TEAM}",
    )


def named_mid_sentence(cased: str) -> str:
    """A role or member written with the catalogue's capital inside a sentence ("Thanks,
    Futurist and Plant", "building on what the Environmentalist said"): prose writes the
    word in lower case there; a sentence's first word is left alone ("Plant trees ...")."""
    return rf"(?<=[^\W_]\s|[,;，、'’)\]]\s){cased}{_AFTER}"


# Words that may stand before a role's name written with its capital and still leave it a name:
# a sentence's opening or an address ("As Debater A", "Thanks, Futurist", "The Plant said");
# any other capitalised word before it makes it part of a proper name ("Desalination Plant").
_CLAUSE_WORDS = frozenset(
    [
        "as", "i", "the", "then", "thanks", "thank", "dear", "hi", "hello", "hey", "our", "my", "and", "but",
        "so", "now", "here", "from", "per", "to", "by", "with", "like", "unlike", "both", "also", "while",
        "when", "after", "before", "since", "because", "if", "what", "said", "says", "asked", "told", "let",
        "ok", "okay", "well", "yes", "no", "for", "in", "on", "at", "of", "or",
    ]
)  # fmt: skip
_WORD_BEFORE = re.compile(r"([^\W\d_]+)[ \t]+$")
_WORD_AFTER = re.compile(r"[ \t]+([^\W\d_]+)")


# a quotation closed and given to someone: '," says Maria', '” said the mayor', '", explains Li'
_GIVEN = re.compile(
    r"[^\"”\n]{0,160}[\"”]\s*[,，]?\s*(?:says|said|explains|explained|adds|added|notes|noted|writes|wrote"
    r"|asks|asked|recalls|recalled|insists|insisted|tells\s+us|told\s+us)\b"
)


# how far back on its line a quotation may have opened: a text of one long line made every name
# count the quotes back to the text's start (hostile pass 18: seconds a megabyte, growing squared)
QUOTE_REACH = 2000


def quoted_speech(text: str, start: int, end: int) -> bool:
    """The name stands inside a quotation that the text gives to someone else ('"I am an
    environmentalist," says Maria'): a person of the scenario speaks, not the response."""
    reach = max(start - QUOTE_REACH, 0)
    line = text.rfind("\n", reach, start) + 1 or reach
    opened = text.count('"', line, start) % 2 == 1 or text.count("“", line, start) > text.count(
        "”", line, start
    )
    return opened and _GIVEN.match(text, end) is not None


def in_a_proper_name(text: str, start: int, end: int, *, next_word: bool) -> bool:
    """The name at ``text[start:end]`` is a word of a proper name: a capitalised word before it
    that does not open a clause ("the Desalination Plant", "Council Member 1"), or, with
    ``next_word``, one after it ("the Futurist Society")."""
    before = _WORD_BEFORE.search(text, max(start - 40, 0), start)
    if before and before[1][0].isupper() and before[1].lower() not in _CLAUSE_WORDS:
        return True
    after = _WORD_AFTER.match(text, end) if next_word else None
    if after and after[1][0].isupper() and after[1] != "I" and after[1].lower() not in _CLAUSE_WORDS:
        return True
    # with ``next_word``, a title of the scenario's people: "The Judge of the International Court", "A
    # federal Judge blocked" (hostile pass 21; "what the Environmentalist said" names a teammate)
    return next_word and bool(
        _TITLE_AFTER.match(text, end) or _TITLE_BEFORE.search(text, max(start - 40, 0), start)
    )


_TITLE_AFTER = re.compile(r"\s+of\s+(?:the|a|an|this|our|its)\b")
_TITLE_BEFORE = re.compile(r"\b(?:a|an)\s+[a-z]{3,}\s+$", re.I)


# Chinese roles that are also everyday words: "未来学家认为，…", "主持人表示…" at a clause's start are
# prose about people of a scenario; the other roles so placed are a teammate speaking (below)
ZH_EVERYDAY_ROLES = frozenset(
    {"未来学家", "未来主义者", "环保主义者", "环保人士", "环境保护主义者", "创业者", "创意人士", "创意工作者",
     "主持人", "裁判", "裁判员", "评判者", "辩手", "辩论者", "正方", "反方",
     "协调员", "协调人", "监督者", "实施者", "创新者", "审议员", "创意专业人士", "初创企业创始人", "创业公司创始人"}
)  # fmt: skip


def teammate_speaking_zh(name: str) -> str:
    """A role of the team that is no everyday word, speaking at a clause's start: "执行者认为时间表
    可行", "协调者指出，…", "另一位执行者认为" (hostile pass 19)."""
    return (
        rf"(?:(?m:^)|(?<=[。！？!?；;，,：:、（(]))[ \t*_#>\-]*(?:(?:团队|小组)(?:中|里)?的|另一位|另一名)?\s*{name}"
        r"\s*(?:也|则|还|却|同样)?(?:认为|觉得|指出|强调|表示|主张|建议|提出|同意|反对|说|发言|回应|质疑|反驳|担心|担忧|提醒)"
    )


# what a name's pattern needs on either side (a Latin name never starts or ends inside a word)
BEFORE, AFTER, LETTER = _BEFORE, _AFTER, _LETTER
# what may stand around a speaker's label at the start of a line, and what a teammate did, for
# ``studies.blind_debate`` and ``studies.blind_teammates``
LIST, TURN, OPEN_MARK, CLOSE_MARK, SPOKE, ZH_FILLER = (
    _LIST,
    _TURN,
    _OPEN_MARK,
    _CLOSE_MARK,
    _SPOKE,
    _ZH_FILLER,
)


def abbreviated(name: str) -> tuple[str, ...]:
    """A role's abbreviation in capitals (``name``: Belbin's "ME", "PL", "IMP", or a role's initials:
    "CP") as a speaker label: "ME:", "**PL**:", "Evaluation (ME):", "Turn 2 [IMP]:" (hostile pass 19;
    "carbon monoxide (CO) levels" is prose: no label)."""
    return (
        rf"(?m:^)[ \t]*(?:{_LIST}[ \t]*){{0,3}}{_TURN}?(?:[^\W\d_]{{1,20}}[ \t]+){{0,3}}"
        rf"(?:[(\[【（][ \t]*)?(?:{_OPEN_MARK}[ \t]*){{0,4}}{name}(?![^\W_])(?:[ \t]*{_CLOSE_MARK}){{0,4}}"
        rf"(?:[ \t]*[)\]】）])?[ \t]*[:：]",
    )

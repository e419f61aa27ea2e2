"""The blind-text check's recipes (``studies.blind_text``): how each kind of term is looked for,
and the contexts (``studies.blind_contexts``) each recipe's patterns are built from. Pure."""

from __future__ import annotations

from collections.abc import Callable

from studies.blind_contexts import (
    abbreviated,
    chaining,
    named_mid_sentence,
    self_naming,
    spoken_of_together,
    tags,
    teammate_speaking_zh,
)
from studies.blind_debate import debate_side, zh_debaters
from studies.blind_makers import claimed, made_by
from studies.blind_teammates import self_naming_zh, teammates_en, teammates_zh

# How each term is looked for: the terms of one recipe are looked for together, each context's
# pattern run once with all their names as alternatives (longest first), so that the cost of a text
# grows with the number of contexts and not with the size of the catalogue (hostile pass 9: a text
# made of the catalogue's own terms cost 18-30 s a megabyte when each term ran its own patterns).
MAKERS = "makers"  # a maker, where a text says who made it
ANYWHERE = "anywhere"  # a distinctive name, a model's, a long strategy's, a word: anywhere
SELF_NAMED = "self_named"  # a plain role or member: where a text names itself or a teammate by it
TAGGED = "tagged"  # a plain condition or strategy: as a speaker label or a tag
CAPITALS = "capitals"  # a plain term of several words with a capital after its first: so written
CHAINED = "chained"  # a plain role, condition or strategy in a context that may name several (rounds 2-3)
NUMBERED = "numbered"  # a role or member of a word and a number ("Member 1"): with its capital, anywhere
MID_SENTENCE = "mid_sentence"  # a plain role with a capital first: so written inside a sentence
PLURAL = "plural"  # a plain role's plural: teammates spoken of together ("both debaters agreed")
CLAIMED = "claimed"  # a word of a model's name after its family ("Opus", "R1"): where a text says it is it
ZH_SPEAKING = "zh_speaking"  # a Chinese role that is no everyday word: speaking at a clause's start
SIDE = "side"  # a debate's side without "side" ("the affirmative"): where a text speaks for it
TEAM_EN = "team_en"  # a plain English role: where a team's member speaks of itself or a teammate (pass 20)
TEAM_ZH = "team_zh"  # a plain Chinese role: a label or the first person ("角色：执行者", "我担当执行者")
ABBREVIATED = "abbreviated"  # a role's abbreviation in capitals ("ME", "PL"): as a speaker label
ZH_DEBATE = "zh_debate"  # a debater's word in Chinese: where a text speaks of the other side or both
# a recipe's contexts, given the alternation of its names ("name") and of the same names written
# with the catalogue's capitals ("cased"); each uses one of them once; flags re.I unless said
CONTEXTS: dict[str, Callable[[str, str], tuple[str, ...]]] = {
    MAKERS: lambda name, cased: made_by(name),
    ANYWHERE: lambda name, cased: (name,),
    SELF_NAMED: lambda name, cased: self_naming(name, cased),
    TEAM_EN: lambda name, cased: teammates_en(name),
    TEAM_ZH: lambda name, cased: self_naming_zh(name),
    TAGGED: lambda name, cased: tags(name),
    CAPITALS: lambda name, cased: (cased,),
    NUMBERED: lambda name, cased: (cased,),
    MID_SENTENCE: lambda name, cased: (named_mid_sentence(cased),),
    CHAINED: lambda name, cased: chaining(name),
    PLURAL: lambda name, cased: spoken_of_together(name),
    CLAIMED: lambda name, cased: claimed(name),
    ZH_SPEAKING: lambda name, cased: (teammate_speaking_zh(name), *teammates_zh(name)),
    SIDE: lambda name, cased: debate_side(name),
    ABBREVIATED: lambda name, cased: abbreviated(name),
    ZH_DEBATE: lambda name, cased: zh_debaters(name),
}

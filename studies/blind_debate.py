"""The contexts in which a text gives away a debate (``studies.blind_text``): a side of it named
("正方辩手认为", "The affirmative side argues", "As the affirmative, I", "Negative:") and debaters
spoken of as a debate speaks of them ("对方辩友", "双方辩手"). Pure."""

from __future__ import annotations

from studies.blind_contexts import AFTER, CLOSE_MARK, LIST, OPEN_MARK, TURN

# the debate's sides in Chinese name the strategy wherever they stand before a debater's word
# ("正方辩手认为", "裁判裁定正方获胜"); "正方形" and "反方向" are prose: see ``DEBATE_AFTER``
DEBATE_SIDES = frozenset({"正方", "反方"})
DEBATE_AFTER = (
    r"(?=\s*(?:[:：）)]|[一二三四]辩|辩手|辩方|一方|获胜|胜出|认为|的?观点|的?立场|发言|陈述|总结|指出|提出|反驳|回应"
    r"|陈词|立论|辩词|质询|胜|的?论[证点据]|更有说服力))"
)
# where a text names itself by a side in Chinese ("作为正方，", "我方是正方", "我们是反方"; hostile pass 20)
ZH_SIDE_SELF = r"(?:作为|身为|我方是|我们是|我是|代表)\s*(?:辩论的|本场辩论的|这场辩论的)?\s*"

# the debate's sides in English ("Affirmative side", "Negative side") name the strategy before an
# arguer's word: "The affirmative side argues", "Round 2 - Negative side rebuttal" ("negative side
# effects" and "on the negative side, costs rise" are prose)
DEBATE_SIDE_AFTER = (
    r"(?!\w)(?=['’]s\s+(?:argument|case|rebuttal|position|claim|closing|opening|answer|reply)"
    r"|\s+(?:argues|argued|contends|contended|claims|claimed|rebuts|rebutted|rebuttal|counters|countered"
    r"|responds|responded|replies|replied|insists|insisted|maintains|maintained|wins|won|concedes|conceded"
    r"|opens|closes|debater|speaker|opening\s+statement|closing\s+statement)\b)"
)


def debate_side(name: str) -> tuple[str, ...]:
    """A debate's side named by its word alone, where a text speaks for it: "As the affirmative, I",
    "Speaking for the negative,", "The affirmative's argument" (hostile pass 19; "an affirmative
    answer" and "a negative effect" are prose), or as a speaker label opening a line: "Affirmative:",
    "**Negative**:", "Round 2 - Negative:" (a list of pros and cons labelled so is held too: a false
    hold costs the admin a release, a miss the blind)."""
    return (
        rf"\b(?:as|speaking\s+for|I\s+am|I['’]m|we\s+are|on\s+behalf\s+of)\s+the\s+{name}{AFTER}"
        rf"(?=\s*[,，:：]|\s+(?:team|I|we)\b)",
        rf"\bthe\s+{name}['’]s\s+(?:argument|case|rebuttal|position|claim|closing|opening|answer|reply)",
        rf"(?m:^)[ \t]*(?:{LIST}[ \t]*){{0,3}}{TURN}?(?:{OPEN_MARK}[ \t]*){{0,4}}{name}{AFTER}"
        rf"(?:[ \t]*{CLOSE_MARK}){{0,4}}(?:[ \t]+{_PART})?[ \t]*[:：]",
        # "The Affirmative maintains", "We, the affirmative, argue", "We on the negative side object", "Side:
        # Affirmative", "I was assigned the affirmative", "Arguing for the affirmative:", "declare the
        # affirmative the winner", "The winner of this debate is the affirmative" (hostile pass 20)
        rf"\bthe\s+{name}{AFTER}(?=\s+(?:maintains|contends|argues|argued|claims|insists|concedes|rebuts|team)\b)",
        rf"\b(?:we,?\s+(?:the|on\s+the)|(?:supported[\s_]+side|winning\s+side|side|winner|stance|verdict|(?:final\s+)?ruling|decision){_QUOTE}\s*[:：]\s*{_QUOTE}|(?:assigned|arguing\s+for|argue\s+for|speaking\s+on\s+behalf\s+of)"
        rf"\s+(?:to\s+)?the|(?:declare|(?:find|judged|ruled|decided)\s+in\s+favou?r\s+of|sided\s+with|winner\s+(?:of\s+(?:this|the)\s+debate\s+)?is)\s+the)"
        rf"\s*{name}{AFTER}(?=\s*(?:side|team|the\s+winner|wins|won|prevails)\b|\s*[\"“”'.,;:!)，。]|\s*$)",
        # "Opening Statement — Affirmative", "## Rebuttal (Negative)", "Having heard the affirmative side
        # and the negative side" (a judge; hostile pass 20)
        rf"(?m:^)[ \t*#_]*(?:\w+[ \t]+)?{_PART}[ \t*_]*(?:[—–\-:：(（]|by)+[ \t*_]*(?:the[ \t]+)?{name}{AFTER}",
        rf"\bhaving\s+heard\s+(?:from\s+)?(?:both\s+)?the\s+{name}{AFTER}",
        # "I'm on the negative side.", "I am arguing the negative." (hostile pass 22)
        rf"\b(?:I\s+am|I['’]m|we\s+are|we['’]re)\s+(?:on|arguing(?:\s+for)?)\s+the\s+{name}{AFTER}(?=\s*(?:side\b|[.,;:!]|$))",
    )


_QUOTE = "[\"“”']?"  # a label's quotes, as JSON or prose writes them ("Supported Side": "Negative")

# what a debate's side labels at a line's start: "Negative rebuttal:", "Affirmative position:",
# "Affirmative Constructive:", "Opening statement - Affirmative"
_PART = r"(?:rebuttal|position|constructive|case|opening|closing|statement|summary|argument|response|cross-examination)"


# a debater's words in Chinese (the catalogue's "辩手", "辩论者", "辩友"): everyday words, yet a debate's
# own where a text speaks of the other side or of both: "对方辩友认为", "双方辩手都同意" (hostile pass 19)
ZH_DEBATERS = frozenset({"辩手", "辩论者", "辩友"})


def zh_debaters(name: str) -> tuple[str, ...]:
    return (rf"(?:对方|双方|我方|另一方|两位|两名|对面的?)\s*{name}",)

"""More contexts in which a text names itself or a teammate by a plain role (``studies.blind_text``'s
TEAM_EN and TEAM_ZH recipes, beside ``blind_contexts.self_naming``): the phrasings hostile pass 20
found, as a team's members write them, in English and in Chinese, each run only near the roles of its
language. Each is matched without regard to case. Pure."""

from __future__ import annotations

from studies.blind_contexts import AFTER, SPOKE, TEAM_VERB, ZH_FILLER

_CLAUSE = r"(?:(?m:^)|(?<=[。！？!?；;，,：:（(【\[]))[ \t*_]*"  # a Chinese clause's start
# a role that starts a word: no Chinese letter before it but a word that ends one ("政策执行者" is prose)
_NO_HAN_BEFORE = r"(?<![\u4e00-\u9fff])"
_ZH_WORD_START = rf"(?:{_NO_HAN_BEFORE}|(?<=[为是和与跟同对把将让请由被据了在]))"


def teammates_en(name: str) -> tuple[str, ...]:
    """English (``name``: the alternation of the English roles' patterns, once per context: a pattern
    names each role's group once)."""
    return (
        # "My teammate the implementer", "In our team discussion, the futurist", "I was told to act as the
        # team's implementer"
        rf"\b(?:(?:my|our)\s+(?:teammate|colleague|fellow\s+agent)s?,?\s+(?:the\s+)?"
        rf"|(?:in|during)\s+(?:our|the)\s+(?:team\s+)?(?:discussion|debate|exchange),?\s+the\s+"
        rf"|I\s+(?:was|have\s+been)\s+(?:told|asked|instructed|assigned)\s+to\s+(?:act|serve|play)\s+(?:as\s+)?"
        rf"(?:the\s+team['’]s\s+|the\s+|our\s+|an?\s+)?){name}{AFTER}",
        # "The moderator has asked me to", "The environmentalist in me objects", "The creative
        # professional on the team suggested"
        rf"\bthe\s+{name}{AFTER}(?=\s+(?:has|had)\s+asked\s+(?:me|us)\b|\s+in\s+me\b|\s+on\s+(?:the|our|this)\s+team\b)",
        # "Building on what the implementer said", "As the environmentalist pointed out,", "Earlier, the
        # implementer proposed"
        rf"\b(?:what|as|earlier,?|previously,?)\s+(?:the|our|my)\s+{name}{AFTER}(?=\s+(?:just\s+|rightly\s+)?{SPOKE}\b)",
        # "I support the environmentalist's position"
        rf"\bI\s+(?:support|back|endorse|second)\s+(?:the|our)\s+{name}['’]s",
        # "Good point, futurist."
        rf"\b(?:good|great|fair|excellent|interesting)\s+(?:point|idea|question|suggestion),?\s+{name}{AFTER}(?=\s*(?:[.!,;]|$))",
        # "Implementer hat on:"
        rf"{name}{AFTER}\s+hat\s+on\b",
        # "Thanks to our moderator", "Our moderator's summary", "The implementer told us", "Let me summarize as
        # moderator", "my turn as implementer" (hostile pass 22)
        rf"\b(?:thanks?\s+(?:you\s+)?to|kudos\s+to|credit\s+to|shout-?out\s+to)\s+(?:our|my)\s+{name}{AFTER}",
        rf"\bour\s+{name}['’]s\s+(?:summary|synthesis|proposal|point|idea|question|critique|plan|conclusion)",
        rf"\bthe\s+{name}{AFTER}(?=\s+(?:told|reminded|asked|urged|invited|convinced)\s+(?:us|me|the\s+team|everyone)\b)",
        rf"\b(?:let\s+me|I['’]ll|I\s+will)\s+\w+(?:\s+\w+)?\s+as\s+(?:the\s+|your\s+|our\s+)?{name}{AFTER}",
        rf"\bmy\s+turn\s+as\s+(?:the\s+)?{name}{AFTER}",
        # a label of its own line ("author: Implementer", "Perspective: Environmentalist", "Members: Futurist,
        # ...") and a greeting ("Dear moderator,", "Hi team, Implementer here")
        rf"(?m:^)[ \t*_-]*(?:author|name|speaker|agent|persona(?:\s*\d)?|perspective|profile|participants?|members?"
        rf"|team|roles?)[*_]*[ \t]*[:：][ \t]*(?:the[ \t]+)?{name}{AFTER}",
        rf"\b(?:dear|hi|hello|hey)\s+(?:the\s+)?{name}{AFTER}(?=\s*[,，!:])",
        # two of them together: "The futurist and the implementer disagree" (hostile pass 20)
        rf"\bthe\s+{name}{AFTER}(?=\s+and\s+(?:the|our)\s+[a-z]+(?:\s+[a-z]+)?\s+(?:{TEAM_VERB})\b)",
        rf"\bthe\s+[a-z]+(?:\s+[a-z]+)?\s+and\s+(?:the|our)\s+{name}{AFTER}(?=\s+(?:{TEAM_VERB})\b)",
        # a teammate addressed or paired with the writer: "Thanks, implementer!", "Your turn, implementer.",
        # "My implementer colleague and I", "Our resident futurist", "Both the futurist and I", "Next up:
        # Implementer." (hostile pass 23)
        rf"\b(?:thanks|thank\s+you|well\s+said|your\s+turn|over\s+to\s+you|good\s+catch|nice\s+one)\s*[,!]?\s*"
        rf"(?:dear\s+)?{name}{AFTER}(?=\s*(?:[.!,;?]|$))",
        rf"\b(?:my|our)\s+{name}{AFTER}(?=\s+(?:colleague|teammate|counterpart)s?\b)",
        rf"\b(?:my|our)\s+resident\s+{name}{AFTER}",
        rf"\bboth\s+the\s+{name}{AFTER}(?=\s+and\s+(?:I|me|myself)\b)",
        rf"\bnext\s+up\s*[:,]\s*(?:the\s+)?{name}{AFTER}(?=\s*(?:[.!,;:]|$))",
    )


def self_naming_zh(name: str) -> tuple[str, ...]:
    """Chinese labels and the first person (``name``: the alternation of the Chinese roles' patterns,
    once per context)."""
    return (
        # Chinese labels and self-naming: "角色：执行者", "身份：执行者", "我被分配为执行者", "我担当执行者",
        # "我将以未来学家的视角"
        rf"(?:(?:角色|身份)\s*[:：]\s*|我(?:被(?:分配|指定|安排|选)(?:为|成|做|担任)|担当|将以|会以|以)\s*){ZH_FILLER}{name}",
        # "执行者视角：", "（执行者视角）"
        rf"{_CLAUSE}{name}\s*(?:视角|角度|立场)\s*[:：）)】\]]",
        # a team's turns: "请未来学家发言", "轮到执行者发言", "现在由环保主义者发言", "以下是执行者的意见",
        # "第一轮——执行者：" (hostile pass 21)
        rf"(?:请|轮到|下面请|现在由|下面由|下面有请|有请)\s*{name}\s*(?:来)?(?:发言|补充|总结|谈谈|回应|陈述)",
        rf"以下是\s*{name}\s*的(?:意见|观点|建议|方案|总结|发言)",
        rf"第\s*[一二三四五六七八九十\d]{{1,3}}\s*轮\s*[—–\-:：]{{0,2}}\s*{name}\s*[:：]",
    )


def teammates_zh(name: str) -> tuple[str, ...]:
    """Chinese teammates (``name``: the alternation of the Chinese roles that are no everyday word,
    once per context: "在未来学家看来" is prose about a scenario's people)."""
    return (
        # Chinese teammates: "听了执行者的发言", "刚才执行者提到了", "在执行者看来", "我和执行者都认为",
        # "回应监督评估者：", "请执行者补充"
        rf"(?:听了|听完|刚才|回应|反驳|在|我(?:和|与|跟)|请)\s*{name}"
        rf"(?=\s*(?:的(?:发言|观点|意见|建议)|[：:]|提到|所说|说|看来|都|补充|发言|总结|回应|继续|说明|谈谈))",
        # "执行者和我都认为", "我赞成协调者的方案"
        rf"{name}\s*(?:和|与|跟)我\s*都",
        # "结合执行者的意见", "采纳了监督评估者的想法" (hostile pass 20)
        rf"(?:结合|采纳了?|采用了?|参考了?|吸收了?|综合了?|借鉴了?)\s*{name}\s*(?:提出)?的\s*(?:意见|想法|观点|建议|方案|思路)",
        rf"赞成\s*{name}",
        # "我们的执行者提醒大家", "谢谢主持人", "执行者意见：", "协调者总结了大家的意见", "作为执行者的我" (hostile pass 22)
        rf"(?:我们|我们团队|团队)的\s*{name}",
        rf"(?:谢谢|感谢)\s*{name}",
        rf"{name}\s*(?:意见|观点|总结|小结|发言)\s*[:：]",
        rf"{name}\s*总结了\s*(?:大家|我们)",
        rf"作为\s*{name}\s*的我",
        # a teammate paired, answered or addressed: "协调者与执行者达成共识", "我和智多星意见一致", "针对执行者的质疑",
        # "执行者的建议被大家采纳了", "好的，协调者。", "致执行者：", "执行者-第3轮：", "团队中的协调者" (hostile pass 23)
        rf"{_ZH_WORD_START}{name}\s*(?:与|和|跟)\s*[\u4e00-\u9fff]{{2,6}}?\s*(?:达成|意见一致|意见相左|都同意|争论|讨论)",
        rf"(?:我|我们)(?:和|与|跟)\s*{name}\s*(?:意见|看法|观点)?(?:一致|相左|不同|都)",
        rf"(?:针对|回应|补充一下|以上是|据|被|由)\s*{name}\s*(?:的(?:质疑|发言|观点|意见|建议|方案|想法|总结|评估|带领)|总结|起草|审阅|负责|所说|提出)",
        rf"{_ZH_WORD_START}{name}\s*的\s*(?:建议|方案|观点|意见|想法|评估结果)\s*(?:被|得到|更|获得|最终)",
        rf"{_ZH_WORD_START}{name}\s*的?\s*(?:总结如下|最终答案|最终方案)",
        rf"(?:好的|收到|谢谢你?)\s*[，,]\s*{name}\s*[。！!，,]",
        rf"{name}\s*(?:你好|您好)\s*[，,！!]",
        rf"(?:{_NO_HAN_BEFORE}致|发言人|署名|发言者)\s*[:：]?\s*{name}\s*[:：]?",  # not "导致执行者"
        rf"{name}\s*[-—–]?\s*第\s*[一二三四五六七八九十\d]{{1,3}}\s*轮\s*[:：]",
        rf"(?:团队|小组|我们组|讨论组)(?:中|里)?的\s*{name}",
        rf"我的(?:任务|职责|工作|角色)是(?:作为)?\s*{name}",
    )

"""What a rater may type on a category select to pick an option (sheet.js's type-ahead):
the English name, its initials and the pinyin initials of the Chinese label, in either
language (typing "kj" picks 科技, Technology). An invalid type answers to "i" before its
initials ("id" = Duplicate): its bare initials would collide with a category's ("d" is
Defense, "s" Science, "wh" 文化), and no category's key starts with "i".

Only the characters of the rubric's category and invalid-type labels are listed: the
labels are the study's fixed vocabulary, and a pinyin library for ~70 characters would be
a dependency for nothing. A character missing here is skipped (its label stays
selectable by its English name and initials)."""

from __future__ import annotations

import re

INVALID_KEY = "i"  # before an invalid type's initials

_PINYIN_INITIALS = {
    # initial letter of each character's pinyin, for the rubric's labels
    "艺": "y", "术": "s", "与": "y", "美": "m", "学": "x", "基": "j", "本": "b", "需": "x", "求": "q",
    "商": "s", "业": "y", "贸": "m", "易": "y", "沟": "g", "通": "t", "交": "j", "流": "l", "文": "w",
    "化": "h", "宗": "z", "教": "j", "防": "f", "御": "y", "安": "a", "全": "q", "经": "j", "济": "j",
    "育": "y", "环": "h", "境": "j", "伦": "l", "理": "l", "道": "d", "德": "d", "政": "z", "府": "f",
    "治": "z", "法": "f", "律": "l", "司": "s", "其": "q", "他": "t", "身": "s", "体": "t", "健": "j",
    "康": "k", "心": "x", "休": "x", "闲": "x", "娱": "y", "乐": "l", "科": "k", "社": "s", "会": "h",
    "关": "g", "系": "x", "技": "j", "运": "y", "输": "s", "可": "k", "能": "n", "为": "w", "何": "h",
    "方": "f", "案": "a", "重": "c", "复": "f", "空": "k", "白": "b",
}  # fmt: skip


def option_keys(*, english: str, label_zh: str, invalid: bool = False) -> str:
    """Space-separated lower-case words the option answers to: its English name run
    together ("lawjustice"), the English initials ("lj"), the pinyin initials of the
    Chinese label ("flsf") and any digits of a numbered variant ("miscellaneous2", "m2");
    an invalid type's initials behind "i" ("id", "icf"), its English name as it is."""
    words = re.findall(r"[A-Za-z]+|\d+", english)
    initials = "".join(w[0] for w in words).lower()
    pinyin = "".join(_PINYIN_INITIALS.get(ch, "") for ch in label_zh) + "".join(re.findall(r"\d+", label_zh))
    if invalid:
        initials, pinyin = INVALID_KEY + initials, INVALID_KEY + pinyin if pinyin else ""
    keys = ["".join(words).lower(), initials, pinyin]
    return " ".join(dict.fromkeys(k for k in keys if k))

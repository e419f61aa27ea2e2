"""Where a text says who made it ("trained by Google", "我是由阿里巴巴集团开发的") or that it is a
model's product line or code ("I am Opus, and"), as regular expressions around a name's pattern.
Pure; beside ``studies.blind_contexts``, used by ``studies.blind_recipes``."""

from __future__ import annotations

from studies.blind_contexts import AFTER as _AFTER

# Who speaks of itself before a maker: "I am", "I was", "this model", "an AI assistant", "a large
# language model" ("AI systems developed by Google" in a scenario, "I recommend the system developed
# by Google" and "my phone was made by Microsoft" are prose)
_SELF = (
    r"(?:\bI\s+(?:am|was|have\s+been)\b|\bI['’]m\b|\bthis\s+(?:model|assistant|AI)\b"
    r"|\ban?\s+(?:large\s+)?(?:AI\s+)?(?:assistant|language\s+model|chatbot|AI\s+model)\b)"
)
# what a model is, after its maker's name ("a Google model", "Google's language model")
_MODEL_WORD = r"(?:AI|assistant|chatbot|(?:large\s+)?language\s+model|model|LLM)\b"
# "我是…由阿里巴巴开发", "本模型由…" ("我认为由百度开发的地图" is prose)
_ZH_SELF = r"(?:我是|我乃|本人是|本模型|本助手|该模型)"
# what a model calls itself in Chinese: "AI助手", "大语言模型"
_ZH_MODEL = r"(?:(?:(?:AI|人工智能)\s*)?(?:助手|模型|大模型|语言模型|大语言模型|聊天机器人)|AI|人工智能)"


def made_by(name: str) -> tuple[str, ...]:
    """Where a text says who made it: "I am ... trained by Google", "an assistant built by
    Moonshot", "developed by a team of researchers at Google", "a large language model from
    Google", "I am Google's AI assistant", "我是由阿里巴巴集团开发的", "我是百度研发的助手"."""
    made = r"(?:trained|developed|created|built|made|designed|released|provided|owned|powered)"
    return (
        rf"{_SELF}[^.!?\n]{{0,80}}?\b(?:{made}\s+)?(?:by|at)\s+"
        rf"(?:(?:a\s+team\s+of\s+)?(?:the\s+)?(?:researchers|engineers|team|folks|people|staff)\s+(?:at|of|from)\s+)?"
        rf"(?:the\s+)?{name}{_AFTER}",
        # "Trained by Google." as a sentence of its own, or before the first person (hostile pass 20)
        rf"(?:(?m:^)|[.!?]\s)[ \t*_]*(?:trained|developed|created|built|made)\s+by\s+(?:the\s+)?{name}{_AFTER}"
        rf"(?=\s*(?:[.!;]|(?m:$)|,\s*I\b))",
        # "Google is my creator", "I am a product of Google"
        rf"{name}\s+(?:is|was)\s+my\s+(?:creator|developer|maker|trainer|parent\s+company|owner)\b",
        rf"(?:\bI\s+am|\bI['’]m|\bthis\s+(?:model|assistant)\s+is)\s+(?:a\s+)?product\s+of\s+(?:the\s+)?{name}{_AFTER}",
        # "I'm a large language model from Google" ("I think the data from Google" is prose)
        rf"(?:\bI\s+am|\bI['’]m|\bthis\s+(?:model|assistant)|\bas)\s+(?:an?\s+)?(?:[\w-]+\s+){{0,3}}?"
        rf"(?:assistant|model|chatbot|AI|system)\s+from\s+(?:the\s+)?{name}{_AFTER}",
        # the maker as the subject, or named as mine: "Google trained me", "My developer is Google"
        rf"{name}\s+(?:trained|developed|created|built|made|designed|programmed|taught)\s+me\b",
        rf"\bmy\s+(?:developer|creator|maker|trainer|parent\s+company)s?\s+(?:is|are|was|were)\s+(?:the\s+)?{name}{_AFTER}",
        # "As Google's AI assistant", "As a Google-trained model", "I come from Google"
        rf"\bas\s+(?:an?\s+)?{name}['’]s\s+(?:AI\s+)?(?:assistant|chatbot|(?:large\s+)?language\s+model|model|AI)\b"
        rf"(?=\s*[,，]\s*(?:I|I['’]\w+|we|my|let['’]?s?)\b)",
        rf"(?:\bas|\bI\s+am|\bI['’]m)\s+an?\s+{name}[\s\-‐]*(?:trained|developed|built|made|created|designed|powered)\b",
        # the maker as the model's attribute (hostile pass 14): "As a Google model, I", "I'm a Google
        # AI", "Being Google's language model", "I'm the Meta assistant", "This Google assistant
        # recommends", "My creator, Google," ("the Google Maps data" and "a Google model predicts" are prose)
        rf"(?:\bI\s+am|\bI['’]m)\s+(?:an?\s+|the\s+)?{name}(?:['’]s)?\s+(?:own\s+)?{_MODEL_WORD}",
        rf"(?:\bas|\bbeing)\s+(?:an?\s+|the\s+)?{name}(?:['’]s)?\s+(?:own\s+)?{_MODEL_WORD}"
        rf"(?=\s*[,，]?\s*(?:I|I['’]\w+|we|my|let['’]?s?)\b)",
        rf"\bthis\s+{name}\s+(?:AI|assistant|chatbot|model)\s+(?:recommends|suggests|proposes|thinks|believes|would)\b",
        rf"\bmy\s+(?:creator|developer|maker|trainer)\s*[,，:：]\s*(?:the\s+)?{name}{_AFTER}",
        rf"\bI\s+(?:come|came|originate|originated|hail)\s+from\s+(?:the\s+)?{name}{_AFTER}(?=\s*(?:[.,;!?]|$|and\b|as\b))",
        rf"{name}\s*(?:集团|公司|团队)?\s*(?:开发|训练|研发|打造|创建|推出)了我",
        rf"我的(?:开发者|创造者|开发商|研发者|训练者|开发公司|创建者)(?:是|为)\s*{name}",
        rf"\bI(?:\s+am|['’]m)\s+(?:the\s+)?{name}['’]s\s+(?:AI|assistant|chatbot|(?:large\s+)?language\s+model|model)",
        rf"{_ZH_SELF}[^。！？\n]{{0,20}}?由\s*{name}\s*(?:集团|公司|团队)?\s*(?:开发|训练|研发|打造|推出|创建|发布|提供)",
        rf"(?:我是|本人是)\s*{name}\s*(?:集团|公司)?\s*(?:开发|研发|训练|打造|推出)的\s*{_ZH_MODEL}?(?=\s*(?:[，。！？,.!?；;\n]|$))",
        rf"(?:我是|本人是)\s*{name}\s*(?:集团|公司)?\s*(?:旗下|研发|开发|推出|打造|训练)?的\s*[^，。！？\n]{{0,8}}?(?:{_ZH_MODEL}|产品)",
        rf"作为\s*{name}\s*(?:集团|公司)?\s*(?:开发|研发|训练|打造|推出)?的\s*{_ZH_MODEL}",
        rf"作为\s*(?:一个|一款|一名)?\s*由\s*{name}\s*(?:集团|公司|团队)?\s*(?:开发|研发|训练|打造|推出)的\s*{_ZH_MODEL}",
        rf"我由\s*{name}\s*(?:集团|公司|团队)?(?:的[^，。！？\n]{{0,8}}?)?\s*(?:开发|训练|研发|打造|推出|创建|发布|提供)",
        rf"{name}\s*(?:集团|公司)?\s*是我的(?:开发者|创造者|开发商|研发者|训练者|开发公司|创建者|母公司|东家)",
        rf"(?:我|本模型|本助手|该模型)(?:来自|出自)\s*{name}",
        # "As a model developed at Alibaba", "My creators at Google", "My training was done by
        # Mistral", "The company that trained me, Google,", "谷歌出品的模型" (hostile pass 19)
        rf"\bas\s+an?\s+(?:[\w-]+\s+){{0,2}}?(?:model|assistant|AI|LLM|chatbot)\s+(?:developed|trained|built"
        rf"|created|made|designed)\s+(?:at|by)\s+(?:the\s+)?{name}{_AFTER}",
        rf"\bmy\s+(?:creators?|developers?|makers?|trainers?)\s+(?:at|from)\s+(?:the\s+)?{name}{_AFTER}",
        rf"\bmy\s+training\s+was\s+(?:done|performed|carried\s+out|conducted)\s+by\s+(?:the\s+)?{name}{_AFTER}",
        rf"\bthe\s+(?:company|lab|team)\s+that\s+(?:trained|built|made|created|developed)\s+me\s*[,，:]?\s*"
        rf"(?:is\s+)?(?:the\s+)?{name}{_AFTER}",
        rf"{name}\s*(?:集团|公司)?\s*出品的\s*{_ZH_MODEL}",
        # "由谷歌训练。" as a sentence of its own, as "Trained by Google." (hostile pass 24; "由百度开发的地图"
        # and "由阿里巴巴开发，我很喜欢" are prose)
        rf"(?:(?m:^)|(?<=[。！？!?；;]))\s*由\s*{name}\s*(?:集团|公司|团队)?\s*(?:开发|训练|研发|打造|推出|创建)"
        rf"(?=\s*(?:[。！？!?.；;]|(?m:$)))",
    )


def claimed(name: str) -> tuple[str, ...]:
    """Where a text says it is a model's product line or code ("I am Opus, and", "I'm R1.", "As
    Sonnet, I", "我是R1"): the name ending the clause ("this is R1 road" is prose)."""
    return (
        rf"(?:\bI\s+am|\bI['’]m|\bthis\s+is|\bmy\s+name\s+is|\bcall\s+me|\bspeaking\s+as|\bas)\s+{name}{_AFTER}"
        rf"(?=\s*(?:[,，.。!;:！；：)]|\Z|\s+(?:and|here|speaking|again)\b))",
        rf"(?:我是|我叫|作为|本人是)\s*{name}(?=\s*(?:[,，.。!！；;：:]|\Z|我|，))",
        # as a speaker's label or signature: "R1 here:", "[R1] build dikes", "— Opus", "Model: R1"
        # (hostile pass 20)
        rf"(?m:^)[ \t*_]*[\[(【]\s*{name}\s*[\])】]",
        rf"(?m:^)[ \t*_]*{name}{_AFTER}\s+here\s*[:：,，]",
        rf"(?m:^)[ \t]*[—–-]{{1,2}}\s*{name}{_AFTER}\s*(?m:$)",
        rf"\bmodel\s*(?:name\s*)?[:：=]\s*{name}{_AFTER}",
    )

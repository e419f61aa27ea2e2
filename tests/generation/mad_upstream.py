"""Multi-Agent Debate's prompts as its published code has them: `code/utils/config4all.json` of
`Skytliang/Multi-Agents-Debate` at commit 022a7a8eecda85844d336e9064cc556edb0445b3 (the newest; the texts
are the same since 28cd8f0 "minor bug fixed", which added "Please strictly output in JSON format ...").
Written out here, independently of `generation/data/supplementary_prompts.json`, so that the
golden tests compare what the product sends with the upstream texts. `##name##` is the method's
placeholder syntax; `upstream()` fills it as the method's code does (`str.replace`)."""

CONFIG4ALL = {
    "player_meta_prompt": "You are a debater. Hello and welcome to the debate. It's not necessary to fully agree with each other's perspectives, as our objective is to find the correct answer.\nThe debate topic is stated as follows:\n##debate_topic##",
    "moderator_meta_prompt": 'You are a moderator. There will be two debaters involved in a debate. They will present their answers and discuss their perspectives on the following topic: "##debate_topic##"\nAt the end of each round, you will evaluate answers and decide which is correct.',
    "affirmative_prompt": "##debate_topic##",
    "negative_prompt": "##aff_ans##\n\nYou disagree with my answer. Provide your answer and reasons.",
    "moderator_prompt": 'Now the ##round## round of debate for both sides has ended.\n\nAffirmative side arguing:\n##aff_ans##\n\nNegative side arguing: ##neg_ans##\n\nYou, as the moderator, will evaluate both sides\' answers and determine if there is a clear preference for an answer candidate. If so, please summarize your reasons for supporting affirmative/negative side and give the final answer that you think is correct, and the debate will conclude. If not, the debate will continue to the next round. Now please output your answer in json format, with the format as follows: {"Whether there is a preference": "Yes or No", "Supported Side": "Affirmative or Negative", "Reason": "", "debate_answer": ""}. Please strictly output in JSON format, do not output irrelevant content.',
    "judge_prompt_last1": "Affirmative side arguing: ##aff_ans##\n\nNegative side arguing: ##neg_ans##\n\nNow, what answer candidates do we have? Present them without reasons.",
    "judge_prompt_last2": 'Therefore, ##debate_topic##\nPlease summarize your reasons and give the final answer that you think is correct. Now please output your answer in json format, with the format as follows: {"Reason": "", "debate_answer": ""}. Please strictly output in JSON format, do not output irrelevant content.',
    "debate_prompt": "##oppo_ans##\n\nDo you agree with my perspective? Please provide your reasons and answer.",
}


def upstream(key: str, **values: str) -> str:
    text = CONFIG4ALL[key]
    for name, value in values.items():
        text = text.replace(f"##{name}##", value)
    return text

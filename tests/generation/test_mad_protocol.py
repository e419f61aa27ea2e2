"""Multi-Agent Debate as Liang et al. run it: the negative side disagrees with the
affirmative, the moderator judges each round in JSON and ends the debate at a
preference; a judge decides after the last round. Strings are the method's code's."""

import json

from generation.strategies import protocol_for, protocol_run, resolve_params, task_for
from generation.strategies.mad import verdict
from tests.generation import release_reference as ref

SCENARIO = "In 2040 the ocean is a soup."
DEBATER = (
    "You are a debater. Hello and welcome to the debate. It's not necessary to fully agree with each "
    "other's perspectives, as our objective is to find the correct answer."
)
NO = json.dumps(
    {"Whether there is a preference": "No", "Supported Side": "", "Reason": "r", "debate_answer": ""}
)


def yes(answer):
    return json.dumps(
        {
            "Whether there is a preference": "Yes",
            "Supported Side": "Negative",
            "Reason": "r",
            "debate_answer": answer,
        }
    )


def run(reply, **overrides):
    params = resolve_params(strategy="mad", overrides=overrides)
    return protocol_run(protocol_for(strategy="mad", task=task_for(SCENARIO), params=params), reply)


def topic(step, earlier):
    parts = [ref.scenario(SCENARIO)]
    if earlier:
        parts.append(
            "\n\n".join(
                ["The following is the historical record up to now: "]
                + [f"The answer of Step-{n} is：\n{a}" for n, a in enumerate(earlier, start=1)]
            )
        )
    parts += [
        ref.step_prompt(step),
        "All responses should be in Chinese, with clear language and accurate logic.",
    ]
    return "\n\n".join(parts)


def test_a_preference_in_round_two_ends_the_debate_with_the_moderators_answer():
    def reply(c):
        if c.role == "Moderator":
            return NO if c.phase == "judgement 1" else f"```json\n{yes(f'answer {c.step}')}\n```"
        return f"<{c.role} {c.step} {c.phase}>"

    calls, answers = run(reply)
    assert answers == [f"answer {n}" for n in range(1, 7)]
    step1 = [(c.phase, c.role) for c in calls if c.step == 1]
    assert step1 == [
        ("round 1", "Debater A"),
        ("round 1", "Debater B"),
        ("judgement 1", "Moderator"),
        ("round 2", "Debater A"),
        ("round 2", "Debater B"),
        ("judgement 2", "Moderator"),
    ]
    t = topic(2, ["answer 1"])
    a, b = (
        next(c for c in calls if c.step == 2 and c.role == r and c.phase == "round 2")
        for r in ("Debater A", "Debater B")
    )
    m = next(c for c in calls if c.step == 2 and c.phase == "judgement 2")
    assert a.messages == [
        {"role": "system", "content": DEBATER + "\nThe debate topic is stated as follows:\n" + t},
        {"role": "user", "content": t},
        {"role": "assistant", "content": "<Debater A 2 round 1>"},
        {
            "role": "user",
            "content": "<Debater B 2 round 1>\n\nDo you agree with my perspective? Please provide your reasons and answer.",
        },
    ]
    assert b.messages[1] == {
        "role": "user",
        "content": "<Debater A 2 round 1>\n\nYou disagree with my answer. Provide your answer and reasons.",
    }
    assert b.messages[3]["content"] == (
        "<Debater A 2 round 2>\n\nDo you agree with my perspective? Please provide your reasons and answer."
    )
    assert m.messages[0]["content"].startswith("You are a moderator. There will be two debaters")
    assert m.messages[-1]["content"].startswith(
        "Now the second round of debate for both sides has ended.\n\nAffirmative side arguing:\n<Debater A 2 round 2>"
        "\n\nNegative side arguing: <Debater B 2 round 2>\n\nYou, as the moderator, will evaluate both sides' answers"
    )
    assert m.messages[-1]["content"].endswith(
        '{"Whether there is a preference": "Yes or No", "Supported Side": "Affirmative or Negative", '
        '"Reason": "", "debate_answer": ""}'
    )
    assert len(m.messages) == 4  # its own conversation: system, judgement 1 and its reply, judgement 2


def test_without_a_preference_a_judge_decides_on_the_first_answers_after_three_rounds():
    def reply(c):
        if c.role == "Moderator":
            return NO
        if c.role == "Judge":
            return (
                "candidates"
                if "candidates" in c.messages[-1]["content"]
                else json.dumps({"Reason": "r", "debate_answer": ["1. a", "2. b"]})
            )
        return f"<{c.role} {c.step} {c.phase}>"

    calls, answers = run(reply)
    assert len(calls) == 6 * (3 * 3 + 2)
    judge = [c for c in calls if c.step == 1 and c.role == "Judge"]
    assert [c.phase for c in judge] == ["final judgement", "final judgement"]
    assert judge[0].messages[-1]["content"] == (
        "Affirmative side arguing: <Debater A 1 round 1>\n\nNegative side arguing: <Debater B 1 round 1>"
        "\n\nNow, what answer candidates do we have? Present them without reasons."
    )
    assert (
        judge[1]
        .messages[-1]["content"]
        .startswith("Therefore, " + topic(1, []) + "\nPlease summarize your reasons")
    )
    assert answers[0] == "1. a\n2. b"


def test_unreadable_verdicts_continue_the_debate_and_keep_the_judges_reply():
    assert verdict("no json here") == {} and verdict("{broken") == {}
    calls, answers = run(lambda c: "plain text", rounds=1)
    assert len(calls) == 6 * (3 + 2)
    assert answers == ["plain text"] * 6

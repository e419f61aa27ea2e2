"""Multi-Agent Debate as Liang et al.'s code runs it: the negative side disagrees with the
affirmative, the moderator judges each round in JSON and a non-empty ``debate_answer`` ends
the debate; a judge decides after the last round. Every message is compared with the upstream
``config4all.json`` texts (``tests/generation/mad_upstream.py``)."""

import json

from generation.strategies import protocol_for, protocol_run, resolve_params, task_for
from generation.strategies.mad import verdict
from tests.generation import release_reference as ref
from tests.generation.mad_upstream import upstream

SCENARIO = "In 2040 the ocean is a soup."
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
        {"role": "system", "content": upstream("player_meta_prompt", debate_topic=t)},
        {"role": "user", "content": upstream("affirmative_prompt", debate_topic=t)},
        {"role": "assistant", "content": "<Debater A 2 round 1>"},
        {"role": "user", "content": upstream("debate_prompt", oppo_ans="<Debater B 2 round 1>")},
    ]
    assert b.messages == [
        {"role": "system", "content": upstream("player_meta_prompt", debate_topic=t)},
        {"role": "user", "content": upstream("negative_prompt", aff_ans="<Debater A 2 round 1>")},
        {"role": "assistant", "content": "<Debater B 2 round 1>"},
        {"role": "user", "content": upstream("debate_prompt", oppo_ans="<Debater A 2 round 2>")},
    ]
    # its own conversation: system, judgement 1 and its reply, judgement 2
    assert m.messages == [
        {"role": "system", "content": upstream("moderator_meta_prompt", debate_topic=t)},
        {
            "role": "user",
            "content": upstream(
                "moderator_prompt",
                round="first",
                aff_ans="<Debater A 2 round 1>",
                neg_ans="<Debater B 2 round 1>",
            ),
        },
        {"role": "assistant", "content": NO},
        {
            "role": "user",
            "content": upstream(
                "moderator_prompt",
                round="second",
                aff_ans="<Debater A 2 round 2>",
                neg_ans="<Debater B 2 round 2>",
            ),
        },
    ]


def test_a_non_empty_debate_answer_ends_the_debate_even_when_the_moderator_says_no():
    """The method's code stops on ``debate_answer != ''`` and never reads the preference."""
    said_no = json.dumps(
        {
            "Whether there is a preference": "No",
            "Supported Side": "",
            "Reason": "r",
            "debate_answer": "  kept  ",
        }
    )
    calls, answers = run(lambda c: said_no if c.role == "Moderator" else f"<{c.role}>")
    assert len(calls) == 6 * 3  # round 1 (A, B) and the first judgement, per step
    assert answers == ["  kept  "] * 6  # the answer as given


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
    t = topic(1, [])
    assert judge[1].messages == [
        {"role": "system", "content": upstream("moderator_meta_prompt", debate_topic=t)},
        {
            "role": "user",
            "content": upstream(
                "judge_prompt_last1", aff_ans="<Debater A 1 round 1>", neg_ans="<Debater B 1 round 1>"
            ),
        },
        {"role": "assistant", "content": "candidates"},
        {"role": "user", "content": upstream("judge_prompt_last2", debate_topic=t)},
    ]
    assert answers[0] == "1. a\n2. b"


def test_unreadable_verdicts_continue_the_debate_and_keep_the_judges_reply():
    assert verdict("no json here") == {} and verdict("{broken") == {}
    calls, answers = run(lambda c: "plain text", rounds=1)
    assert len(calls) == 6 * (3 + 2)
    assert answers == ["plain text"] * 6

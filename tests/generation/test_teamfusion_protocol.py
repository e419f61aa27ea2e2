"""TeamFusion as its paper describes it: a proxy per member (the paper's proxy
guidelines), a structured discussion, synthesis, iterations (four by default, the
product's choice), and per iteration
each proxy's representation and consensus ratings."""

import json

import pytest

from generation.strategies import ParameterError, protocol_for, protocol_run, resolve_params, task_for
from generation.strategies.teamfusion import rating_values

PROFILES = [
    {"name": "Ada", "preferences": "I want bold technology."},
    {"name": "Ben", "preferences": "I care about fairness for fishers."},
    {"name": "Cy", "preferences": "I need cheap, feasible plans."},
]
NAMES = ["Ada", "Ben", "Cy"]
GUIDELINE = (
    "**Understand and Hold Your Position**: Carefully read and internalize the viewpoint expressed in your "
    "comment. This represents your perspective in this discussion. Stay true to the sentiment and reasoning "
    "of your assigned comment"
)
WORK_BACKWARDS = (
    "Start from the END of the conversation and work backwards - the most recent messages contain the final "
    "consensus and should be given the highest priority."
)


def reply(c):
    if c.phase.startswith("rating"):
        return json.dumps({"representation": 1 + c.seq % 5, "consensus": 5 - c.seq % 5, "reason": "r"})
    return f"<{c.role} {c.phase} {c.seq}>"


def run(**overrides):
    params = resolve_params(strategy="teamfusion", overrides=overrides, profiles=PROFILES)
    return protocol_run(protocol_for(strategy="teamfusion", task=task_for("S"), params=params), reply)


def test_four_iterations_of_discussion_synthesis_and_ratings_per_step():
    calls, answers = run()
    assert len(calls) == 6 * 4 * (3 + 1 + 3)
    step2 = [(c.phase, c.role) for c in calls if c.step == 2]
    expected = []
    for i in range(1, 5):
        expected += [(f"discussion {i}", n) for n in NAMES]
        expected += [(f"synthesis {i}", "Synthesizer")]
        expected += [(f"rating {i}", n) for n in NAMES]
    assert step2 == expected
    assert answers == [f"<Synthesizer synthesis 4 {c.seq}>" for c in calls if c.phase == "synthesis 4"]
    assert {c.params["temperature"] for c in calls if c.role != "Synthesizer"} == {0.7}
    assert {c.params["temperature"] for c in calls if c.role == "Synthesizer"} == {0.4}


def test_each_proxy_is_conditioned_on_its_member_with_the_papers_guidelines():
    calls, _ = run()
    ben = next(c for c in calls if c.role == "Ben")
    system = ben.messages[0]["content"]
    assert "You are the proxy of the team member Ben. The other members' proxies are Ada、Cy." in system
    assert "I care about fairness for fishers." in system and "I want bold technology." not in system
    assert GUIDELINE in system and "at most 2 paragraphs" in system


def test_discussion_surfaces_agreements_and_the_synthesis_reads_it_from_the_end():
    calls, _ = run()
    step1 = [c for c in calls if c.step == 1]
    cy = next(c for c in step1 if c.phase == "discussion 1" and c.role == "Cy").messages[-1]["content"]
    assert "The information for Step 1 is as follows:" in cy
    assert "Ada says: <Ada discussion 1 0>" in cy and "Ben says: <Ben discussion 1 1>" in cy
    assert "AGREEMENTS:" in cy and "DISAGREEMENTS:" in cy
    synthesis = next(c for c in step1 if c.phase == "synthesis 1").messages[-1]["content"]
    assert "Cy says: <Cy discussion 1 2>" in synthesis and WORK_BACKWARDS in synthesis
    # iteration 2: the proxies discuss the deliverable; each is shown only what is new to it
    ada2 = next(c for c in step1 if c.phase == "discussion 2" and c.role == "Ada")
    assert [m["role"] for m in ada2.messages] == ["system", "user", "assistant", "user"]
    text = ada2.messages[-1]["content"]
    assert "<Synthesizer synthesis 1 3>" in text and "Ben says: <Ben discussion 1 1>" in text
    assert "Ada says: <Ada discussion 1 0>" not in text
    synthesis2 = next(c for c in step1 if c.phase == "synthesis 2")
    assert synthesis2.messages[2]["content"] == "<Synthesizer synthesis 1 3>"  # it refines its deliverable


def test_ratings_are_separate_conversations_and_are_read_back():
    calls, _ = run()
    rating = next(c for c in calls if c.phase == "rating 1" and c.role == "Ada")
    assert [m["role"] for m in rating.messages] == ["system", "user"]
    assert "<Synthesizer synthesis 1 3>" in rating.messages[-1]["content"]
    assert '"representation"' in rating.messages[-1]["content"]
    assert rating_values(reply(rating)) == (1 + rating.seq % 5, 5 - rating.seq % 5)
    assert rating_values('Rating: {"representation": 9, "consensus": "4"}') == (None, 4)
    assert rating_values("no json") == (None, None)


def test_agents_start_each_step_afresh_but_see_earlier_answers():
    calls, _ = run(iterations=1)
    assert len(calls) == 6 * 7
    ada = next(c for c in calls if c.step == 2 and c.role == "Ada")
    assert [m["role"] for m in ada.messages] == ["system", "user"]
    step1_answer = next(c for c in calls if c.step == 1 and c.phase == "synthesis 1")
    assert (
        f"The answer of Step-1 is：\n<Synthesizer synthesis 1 {step1_answer.seq}>"
        in ada.messages[-1]["content"]
    )


def test_teamfusion_needs_two_distinct_members():
    with pytest.raises(ParameterError):
        resolve_params(strategy="teamfusion", profiles=PROFILES[:1])
    with pytest.raises(ParameterError):
        resolve_params(strategy="teamfusion", profiles=[PROFILES[0], PROFILES[0]])


def test_iterations_temperatures_and_prompts_are_settings_with_the_products_defaults():
    from generation.strategies.teamfusion import default_prompts

    params = resolve_params(strategy="teamfusion", profiles=PROFILES)
    assert (params["iterations"], params["proxy_temperature"], params["synthesizer_temperature"]) == (
        4,
        0.7,
        0.4,
    )
    assert params["prompts"] == default_prompts()  # recorded with every run
    calls, _ = run(
        iterations=2,
        proxy_temperature=0.9,
        synthesizer_temperature=0.1,
        prompts={"discuss": "Talk about Step {Step_Number}.", "rate": "Score {Draft} as JSON."},
    )
    assert {c.phase for c in calls if c.step == 1} == {
        f"{name} {i}" for name in ("discussion", "synthesis", "rating") for i in (1, 2)
    }
    first = next(c for c in calls if c.phase == "discussion 1")
    assert first.messages[-1]["content"].endswith("Talk about Step 1.")
    assert first.params["temperature"] == 0.9
    assert next(c for c in calls if c.phase == "synthesis 1").params["temperature"] == 0.1
    rating = next(c for c in calls if c.phase == "rating 1")
    assert rating.messages[-1]["content"].startswith("Score <Synthesizer synthesis 1")
    # the other prompts keep the product's texts
    refine = next(c for c in calls if c.phase == "discussion 2")
    assert "Discuss how it should be refined." in refine.messages[-1]["content"]


def test_a_run_stored_before_prompts_were_settings_replays_the_same_messages():
    params = resolve_params(strategy="teamfusion", profiles=PROFILES)
    old = {k: v for k, v in params.items() if k != "prompts"}
    new_calls, _ = protocol_run(protocol_for(strategy="teamfusion", task=task_for("S"), params=params), reply)
    old_calls, _ = protocol_run(protocol_for(strategy="teamfusion", task=task_for("S"), params=old), reply)
    assert [c.messages for c in old_calls] == [c.messages for c in new_calls]


@pytest.mark.parametrize(
    "prompts, message",
    [
        ({"rate": "Rate it."}, r"prompts.rate must contain \{Draft\}"),
        ({"proxy": "You speak for {Member_Name}."}, r"\{Preferences\}"),
        ({"nope": "x"}, "unknown prompt"),
        ({"discuss": ""}, "non-empty"),
        ("text", "must be an object"),
    ],
)
def test_bad_prompt_settings_are_refused_when_a_run_resolves_them(prompts, message):
    with pytest.raises(ParameterError, match=message):
        resolve_params(strategy="teamfusion", overrides={"prompts": prompts}, profiles=PROFILES)

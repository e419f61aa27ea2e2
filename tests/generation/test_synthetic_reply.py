"""The stub's synthetic answers have the shape each step asks for, so a stub run
gives a scoreable response; and they are labelled as synthetic."""

from devtools.llm_stub import detect_role, detect_step, synthetic_reply
from generation.strategies import protocol_for, protocol_run, resolve_params, task_for
from studies.parsing import grid_errors, parse_grid, split_numbered_items


def teamllm_calls():
    params = resolve_params(strategy="teamllm")
    task = task_for(
        "In 2040 the ocean around Hawaii is a soup of microplastics; plankton and tourism suffer."
    )
    calls, _ = protocol_run(
        protocol_for(strategy="teamllm", task=task, params=params),
        lambda call: synthetic_reply(call.messages)[0],
    )
    return calls


def test_every_teamllm_call_is_read_as_its_step_and_role():
    for call in teamllm_calls():
        assert detect_step(call.messages) == call.step, (call.seq, call.phase)
        assert detect_role(call.messages) == call.role


def test_replies_have_the_shape_of_their_step_and_are_labelled():
    answers = {c.step: synthetic_reply(c.messages)[0] for c in teamllm_calls() if c.phase == "consensus"}
    assert all(text.startswith("[Synthetic reply from llm_stub") for text in answers.values())
    assert len(split_numbered_items(answers[1]).items) == 8
    assert "how might we" in answers[2].lower() and "in order to" in answers[2]
    assert len(split_numbered_items(answers[3]).items) == 8
    criteria = split_numbered_items(answers[4]).items
    assert len(criteria) == 5 and all(c.endswith("?") for c in criteria)
    grid = parse_grid(answers[5])
    assert grid is not None and grid.criteria == 5 and len(grid.rows) == 8
    assert grid_errors(grid, expected_solutions=8) == []
    assert "Highest-scoring solution ID:" in answers[5]
    assert answers[6].splitlines()[1].startswith("Best Solution ID:") and "Action Plan:" in answers[6]


def test_replies_are_deterministic_and_built_from_the_request():
    messages = [
        {"role": "system", "content": "scenario:\n```\nZeppelins deliver seaweed to Reykjavik\n```"},
        {"role": "user", "content": "The information for Step 1 is as follows: ..."},
    ]
    text, reasoning = synthetic_reply(messages)
    assert synthetic_reply(messages) == (text, reasoning)
    assert any(word in text for word in ("zeppelins", "seaweed", "reykjavik", "deliver"))
    other, _ = synthetic_reply([messages[0], {"role": "user", "content": messages[1]["content"] + "!"}])
    assert other != text
    assert reasoning.startswith("(synthetic reasoning)")


def test_warm_up_prompts_get_an_introduction():
    calls = teamllm_calls()
    intro, _ = synthetic_reply(calls[2].messages)
    assert "· Warm-up · Monitor Evaluator]" in intro and "I am Monitor Evaluator" in intro

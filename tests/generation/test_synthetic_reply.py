# ruff: noqa: S310 - urlopen on the local stub's http:// URL
"""The stub's synthetic answers have the shape each step asks for, so a stub run
gives a scoreable response; and they are labelled as synthetic."""

import json

from devtools.llm_stub import detect_role, detect_step, synthetic_reply
from generation.strategies import protocol_for, protocol_run, resolve_params, task_for
from generation.strategies.teamfusion import rating_values
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
    assert all(text.startswith("[Synthetic reply · Step") for text in answers.values())
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
    assert intro.startswith("[Synthetic reply · Warm-up]") and "I am Monitor Evaluator" in intro


def test_no_step_reply_names_its_role_strategy_or_model():
    """What can reach a response (every step's reply of every strategy) names no role, no
    strategy and not the stub: the review gate would hold it (issue 36)."""
    from generation.strategies import strategy_role_names
    from studies.blind_text import MODEL, ROLE, STRATEGY, BlindTerm, blind_terms_found

    terms = [BlindTerm(name, ROLE) for name in (*strategy_role_names(), "Ann", "Bo")]
    terms += [BlindTerm(name, MODEL) for name in ("stub", "stub-cgpst", "llm_stub")]
    terms += [
        BlindTerm(name, STRATEGY)
        for name in ("TeamLLM", "LLM Discussion", "Multi-Agent Debate", "TeamFusion")
    ]
    for strategy in ("single", "teamllm", "ablation", "llm_discussion", "mad", "teamfusion"):
        members = [{"name": "Ann", "preferences": "parks"}, {"name": "Bo", "preferences": "jobs"}]
        calls, answers = strategy_calls(
            strategy, **({"profiles": members} if strategy == "teamfusion" else {})
        )
        # a debate's judgements are JSON the protocol reads ("Supported Side": its answer goes on
        # as the step's answer, checked below), never a response's text
        replies = [
            synthetic_reply(c.messages)[0]
            for c in calls
            if c.step > 0 and not c.phase.startswith(("rating", "judgement", "final judgement"))
        ]
        assert replies and len(answers) == 6, strategy
        assert blind_terms_found(replies + answers, terms) == {}, strategy


def strategy_calls(strategy, **profiles):
    params = resolve_params(strategy=strategy, **profiles)
    calls, answers = protocol_run(
        protocol_for(
            strategy=strategy, task=task_for("In 2040 the ocean is a soup of microplastics."), params=params
        ),
        lambda call: synthetic_reply(call.messages)[0],
    )
    return calls, answers


def test_llm_discussion_members_and_steps_are_recognised():
    calls, answers = strategy_calls("llm_discussion")
    assert all(detect_step(c.messages) == c.step for c in calls)
    assert all(detect_role(c.messages) == c.role for c in calls)
    assert len(split_numbered_items(answers[0]).items) == 8


def test_the_debate_moderator_answers_in_json_and_prefers_in_round_two():
    calls, answers = strategy_calls("mad")
    assert len(calls) == 6 * 6  # every debate ends at the moderator's preference in round 2
    first = next(c for c in calls if c.phase == "judgement 1")
    assert json.loads(synthetic_reply(first.messages)[0])["Whether there is a preference"] == "No"
    second = json.loads(synthetic_reply(next(c for c in calls if c.phase == "judgement 2").messages)[0])
    assert second["Whether there is a preference"] == "Yes" and second["debate_answer"]
    assert len(split_numbered_items(answers[0]).items) == 8  # the moderator's answer has the step's shape
    assert grid_errors(parse_grid(answers[4])) == []


def test_teamfusion_proxies_rate_in_json():
    profiles = [{"name": "Ann", "preferences": "x"}, {"name": "Bo", "preferences": "y"}]
    calls, answers = strategy_calls("teamfusion", profiles=profiles)
    ratings = [rating_values(synthetic_reply(c.messages)[0]) for c in calls if c.phase.startswith("rating")]
    assert len(ratings) == 6 * 4 * 2
    assert all(r is not None and 1 <= r <= 5 and 1 <= c <= 5 for r, c in ratings)
    assert {detect_role(c.messages) for c in calls} == {"Ann", "Bo", "Synthesizer"}
    assert len(split_numbered_items(answers[2]).items) == 8


def test_the_stub_records_every_request_body(llm_stub):
    import urllib.request

    for n in range(3):
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": f"hello {n}"}]}).encode()
        request = urllib.request.Request(
            llm_stub.base_url + "/chat/completions", body, {"Content-Type": "application/json"}
        )
        urllib.request.urlopen(request, timeout=10).read()
    with urllib.request.urlopen(llm_stub.base_url.removesuffix("/v1") + "/_stub/requests", timeout=10) as r:
        recorded = json.loads(r.read())["requests"]
    assert [b["messages"][0]["content"] for b in recorded] == ["hello 0", "hello 1", "hello 2"]


def test_the_ablation_without_roles_is_read_as_its_step_and_answers_with_a_grid():
    """Found running condition C on the stub after `make run`: every step after the first
    was read as Step 1 (the members' earlier replies, quoted after the step's text, name
    "Step 1"), so the response held Step 1's challenges in all six steps and no grid."""
    calls, answers = strategy_calls("ablation")
    assert [detect_step(c.messages) for c in calls] == [c.step for c in calls]
    assert len(split_numbered_items(answers[0]).items) == 8
    assert grid_errors(parse_grid(answers[4]), expected_solutions=8) == []


def test_the_demos_runs_on_the_stub_are_not_held_for_names(demo):
    """What `make run`'s demo generates (each standard condition on the stub endpoint, the
    demo's members as TeamFusion's proxies) names nothing of the demo study's catalogue:
    the review gate holds it only because the study holds every generated response."""
    from generation.models import PreferenceProfile
    from studies.models import Condition, ModelEndpoint, Response
    from studies.services.responses import response_create

    stub = ModelEndpoint.objects.get(name="stub")
    members = [
        {"name": p.name, "preferences": p.preferences}
        for p in PreferenceProfile.objects.filter(study=demo.study)
    ]
    assert len(members) == 2
    scenario = demo.study.scenarios.get(code="FS10")
    for condition in Condition.objects.filter(letter__in="ABCDEF"):
        profiles = {"profiles": members} if condition.strategy == "teamfusion" else {}
        _, answers = strategy_calls(condition.strategy, **profiles)
        Response.objects.filter(study=demo.study, model=stub, condition=condition).delete()
        response = response_create(
            study=demo.study, scenario=scenario, model=stub, condition=condition, answers=answers,
            source="generated",
        )  # fmt: skip
        assert [r["code"] for r in response.hold_reasons] == ["needs_release"], condition.letter

"""The judge prompt's contents, the answer schema, validation and the mean of k samples."""

import json

import pytest

from judging.answer import (
    SheetShape,
    answer_check,
    answer_schema,
    expected_paths,
    round_half_up,
    samples_combine,
)
from judging.prompt import ResponseView, judge_messages, reask_messages
from studies.rubric import load_rubric

RUBRIC = load_rubric("cgpst-v1")
VIEW = ResponseView(
    scenario_theme="Ocean cities",
    scenario_text="In 2060 most people live in floating cities.",
    items={
        1: ["Storms flood the lower decks of every floating city.", "Food"],
        3: ["Build wave walls."],
        4: [f"criterion {i}" for i in range(1, 6)],
    },
    steps={
        2: "Given rising seas, how might we keep floating cities dry so that people stay safe?",
        5: "grid",
        6: "A plan.",
    },
    grid={"rows": 1},
)
SHAPE = VIEW.shape(RUBRIC)


def _valid() -> dict:
    answer = {}
    for path in expected_paths(SHAPE):
        if path.endswith("classification"):
            answer[path] = "Basic Needs"
        elif path.startswith("texts."):
            answer[path] = "x"
        elif path.startswith("dims."):
            answer[path] = RUBRIC.dimension(path[5:]).min
        else:
            answer[path] = 1
    return answer


def test_the_prompt_carries_rubric_scenario_response_and_schema():
    system, user = (m["content"] for m in judge_messages(version="cgpst-judge-v1", rubric=RUBRIC, view=VIEW))
    step2 = RUBRIC.step(2)
    assert "cgpst-judge-v1" in system and step2.guideline.en in system
    assert step2.dimensions[0].levels[0].en in system  # level descriptions
    assert RUBRIC.categories[0].description.en in system and "invalid:perhaps" in system
    assert "In 2060 most people live in floating cities." in user
    assert "[items.1.1] Storms flood" in user and "[items.3.1] Build wave walls." in user
    assert "how might we keep floating cities dry" in user and '"rows": 1' in user
    schema = json.loads(user.split("BEGIN SCHEMA\n")[1].split("\nEND SCHEMA")[0])
    assert schema == answer_schema(SHAPE)


def test_the_schema_has_exactly_the_sheets_entries():
    schema = answer_schema(SHAPE)
    paths = schema["required"]
    assert schema["additionalProperties"] is False and set(paths) == set(schema["properties"])
    assert (
        "items.1.2.classification" in paths and "items.1.3.classification" not in paths
    )  # absent items stay Blank
    assert [p for p in paths if p.startswith("items.4.")] == [
        f"items.4.{i}.{f}" for i in range(1, 6) for f in ("correctly_written", "relevance")
    ]
    assert "dims.s1.fluency" not in paths and "dims.s2.focus" in paths and "texts.kvp" in paths
    assert schema["properties"]["dims.s2.focus"] == {"type": "integer", "minimum": 1, "maximum": 10}
    assert "invalid:solution" not in schema["properties"]["items.3.1.classification"]["enum"]
    assert len(paths) == 2 * 3 + 1 * 3 + 10 + 4 + 6 + 1 + 6


def test_a_valid_answer_passes_and_a_fenced_one_too():
    raw = json.dumps(_valid())
    assert answer_check(SHAPE, raw).ok
    assert answer_check(SHAPE, f"```json\n{raw}\n```").ok


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda a: "Sure! Here are my scores.", "one JSON object"),
        (lambda a: json.dumps(a)[:200], "not valid JSON (it looks cut off)"),
        (
            lambda a: json.dumps({**a, "items.1.1.classification": "Cooking"}),
            "items.1.1.classification: Unknown category.",
        ),
        (
            lambda a: json.dumps({**a, "dims.s2.focus": 11}),
            "dims.s2.focus: Focus of the underlying problem must be a whole number from 1 to 10.",
        ),
        (lambda a: json.dumps({**a, "dims.s1.fluency": 2}), "dims.s1.fluency: not an entry of this sheet."),
        (
            lambda a: json.dumps({k: v for k, v in a.items() if k != "texts.stem"}),
            "texts.stem: missing entry.",
        ),
        (
            lambda a: json.dumps({**a, "items.1.1.elaboration": None}),
            "items.1.1.elaboration: a value is required",
        ),
        (
            lambda a: json.dumps({**a, "items.1.1.classification": "invalid:why"}),
            "items.1.1.elaboration: Only Yes items get Elaboration and Originality.",
        ),
        (lambda a: json.dumps([a]), "one JSON object"),
    ],
)
def test_every_bad_answer_is_refused_with_a_clear_message(change, message):
    checked = answer_check(SHAPE, change(_valid()))
    assert not checked.ok and checked.values == {}
    assert any(message in e for e in checked.errors), checked.errors


def test_the_reask_repeats_the_conversation_with_the_errors():
    first = judge_messages(version="cgpst-judge-v1", rubric=RUBRIC, view=VIEW)
    again = reask_messages(first, "prose", ["dims.s2.focus: missing entry."])
    assert again[:2] == first and again[2] == {"role": "assistant", "content": "prose"}
    assert "- dims.s2.focus: missing entry." in again[3]["content"]


def test_k_samples_combine_by_majority_and_rounded_mean():
    a, b, c = _valid(), _valid(), _valid()
    a["items.1.1.classification"], b["items.1.1.classification"] = "Environment", "Environment"
    a["dims.s2.focus"], b["dims.s2.focus"], c["dims.s2.focus"] = 2, 3, 3  # mean 2.67 -> 3
    a["dims.s6.relevance"], b["dims.s6.relevance"], c["dims.s6.relevance"] = 1, 2, 2  # mean 1.67 -> 2
    a["items.1.2.elaboration"], b["items.1.2.elaboration"] = 2, 1  # 1.33 with c's 1 -> 1
    c["items.1.2.classification"], c["items.1.2.elaboration"], c["items.1.2.originality"] = (
        "invalid:why",
        None,
        None,
    )
    a["texts.kvp"], b["texts.kvp"], c["texts.kvp"] = "keep", "dry", "dry"
    combined = samples_combine(SHAPE, [a, b, c])
    assert combined.ok, combined.errors
    v = combined.values
    assert v["items.1.1.classification"] == "Environment" and v["dims.s2.focus"] == 3
    assert v["dims.s6.relevance"] == 2 and v["texts.kvp"] == "dry"
    assert (
        v["items.1.2.classification"] == "Basic Needs" and v["items.1.2.elaboration"] == 2
    )  # mean of 2, 1 = 1.5 -> 2
    tie = samples_combine(SHAPE, [{**a, "items.1.1.classification": "Physical Health"}, c])
    assert tie.values["items.1.1.classification"] == "Physical Health"  # a tie goes to the first sample
    d = {**c, "items.1.2.classification": "invalid:why"}
    majority_invalid = samples_combine(SHAPE, [a, d, d])
    assert majority_invalid.values["items.1.2.elaboration"] is None


def test_rounding_is_half_up():
    assert [round_half_up(x) for x in (0.5, 1.5, 2.5, 2.49, 1 / 3)] == [1, 2, 3, 2, 0]


def test_shape_counts_only_present_items():
    assert SheetShape(rubric=RUBRIC, present={1: 12}).items_present(1) == 8


def test_the_stub_refuses_an_unknown_judge_fault():
    from devtools.llm_stub import StubConfig

    with pytest.raises(ValueError, match="unknown judge fault"):
        StubConfig().update({"judge_fault": "poetry"})


def test_the_stub_judge_answers_a_valid_sheet_derived_from_the_response():
    from devtools.llm_judge_stub import judge_answer

    messages = judge_messages(version="cgpst-judge-v1", rubric=RUBRIC, view=VIEW)
    answer = judge_answer({}, messages)  # the schema read from the prompt
    assert answer_check(SHAPE, json.dumps(answer)).ok
    assert answer["items.1.2.classification"].startswith("invalid:")  # "Food": too short to be a Yes item
    assert not answer["items.1.1.classification"].startswith("invalid:")
    longer = ResponseView(**{**VIEW.__dict__, "steps": {**VIEW.steps, 6: "A detailed plan. " * 60}})
    other = judge_answer({}, judge_messages(version="cgpst-judge-v1", rubric=RUBRIC, view=longer))
    assert sum(other[k] for k in other if k.startswith("dims.s6.")) > sum(
        answer[k] for k in answer if k.startswith("dims.s6.")
    )

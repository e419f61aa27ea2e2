import copy
import json

import pytest

from studies.rubric import RUBRIC_DIR, RubricError, load_rubric, parse_rubric


@pytest.fixture
def raw():
    return json.loads((RUBRIC_DIR / "cgpst-v1.json").read_text(encoding="utf-8"))


def test_load_rubric_has_the_study_structure():
    rubric = load_rubric("cgpst-v1")
    assert [s.max for s in rubric.steps] == [48, 30, 48, 20, 5, 35]
    assert rubric.max_total == 186
    assert len(rubric.dimensions) == 23
    assert len(rubric.categories) == 20
    assert [t.key for t in rubric.step(1).invalid_types] == [
        "perhaps",
        "why",
        "solution",
        "duplicate",
        "blank",
    ]
    assert [t.key for t in rubric.step(3).invalid_types] == ["perhaps", "why", "duplicate", "blank"]
    # every level description exists in both languages
    for dim in rubric.dimensions:
        for level in dim.levels:
            assert level.en and level.zh


def test_parse_rubric_rejects_maxima_that_do_not_add_up(raw):
    broken = copy.deepcopy(raw)
    broken["steps"][1]["max"] = 31
    with pytest.raises(RubricError, match="add up"):
        parse_rubric(broken)


def test_parse_rubric_rejects_missing_chinese_text(raw):
    broken = copy.deepcopy(raw)
    broken["steps"][5]["dimensions"][0]["levels"][0]["zh"] = ""
    with pytest.raises(RubricError, match="Chinese"):
        parse_rubric(broken)


def test_parse_rubric_rejects_level_gaps(raw):
    broken = copy.deepcopy(raw)
    del broken["steps"][1]["dimensions"][0]["levels"][1]
    with pytest.raises(RubricError, match="cover"):
        parse_rubric(broken)


def test_load_rubric_refuses_unknown_or_traversing_versions():
    with pytest.raises(RubricError):
        load_rubric("nope")
    with pytest.raises(RubricError):
        load_rubric("../settings")

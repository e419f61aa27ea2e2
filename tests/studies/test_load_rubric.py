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


@pytest.mark.django_db  # an unknown name is looked for among the stored versions too
def test_load_rubric_refuses_unknown_or_traversing_versions():
    with pytest.raises(RubricError):
        load_rubric("nope")
    with pytest.raises(RubricError):
        load_rubric("../settings")


# The level descriptions written for this platform (the study's sheet gives one description
# for these dimensions); every other level text is the study's sheet. Listed in docs/raters.md.
PLATFORM_LEVELS = {"elaboration", "originality", "s2.focus", "s2.adequacy", "s5.correctly_used"}


def test_every_level_description_says_where_it_comes_from():
    rubric = load_rubric("cgpst-v1")
    specs = [spec for step in rubric.steps for spec in (*step.item_scores, *step.dimensions) if spec.levels]
    assert {s.key for s in specs if s.levels_source == "platform"} == PLATFORM_LEVELS
    assert all(level.source in ("sheet", "platform") for s in specs for level in s.levels)
    assert {s.key for s in specs if s.levels_source == "sheet"} >= {"s2.condition_phrase", "s6.development"}


def test_the_study_guidelines_are_in_both_languages():
    rubric = load_rubric("cgpst-v1")
    assert rubric.step(3).guideline.en.startswith("Only solutions that respond to the KVP")
    assert rubric.step(3).guideline.zh.startswith("只有回应核心问题的 KVP")
    assert "closeness and logical consistency" in rubric.dimension("s2.focus").guideline.en
    assert rubric.dimension("s5.correctly_used").guideline.zh


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (None, "levels_source must be one of sheet, platform, edited"),
        ("ours", r"levels_source: 'ours' is not one of \['sheet', 'platform', 'edited'\]"),
    ],
)
def test_parse_rubric_rejects_levels_without_a_known_source(raw, source, message):
    bad = copy.deepcopy(raw)
    dim = bad["steps"][1]["dimensions"][0]
    dim.pop("levels_source")
    if source:
        dim["levels_source"] = source
    with pytest.raises(RubricError, match=message):
        parse_rubric(bad)


def test_the_raters_page_lists_the_level_texts_written_for_this_platform():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "raters.md").read_text(encoding="utf-8")
    section = page.split("### Where the level descriptions come from", 1)[1].split("\n## ", 1)[0]
    rubric = load_rubric("cgpst-v1")
    for key in PLATFORM_LEVELS:
        spec = next(s for step in rubric.steps for s in (*step.item_scores, *step.dimensions) if s.key == key)
        assert f"`{key}`" in section, key
        assert spec.levels_source == "platform"

"""The rubric format: a document is read from JSON or YAML and refused with every problem named
(docs/rubric-format.md); cgpst-v1 is one instance of it."""

import copy
import json

import jsonschema
import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

from studies.rubric import RUBRIC_DIR, RubricError, SheetEntries, load_rubric, parse_rubric, sheet_totals
from studies.rubric.document import FORMAT_SCHEMA_PATH, rubric_document_read


@pytest.fixture
def raw():
    return json.loads((RUBRIC_DIR / "cgpst-v1.json").read_text(encoding="utf-8"))


def problems_of(data):
    with pytest.raises(RubricError) as caught:
        parse_rubric(data)
    return caught.value.problems


def test_the_format_is_a_valid_json_schema_and_every_shipped_rubric_follows_it():
    schema = json.loads(FORMAT_SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    shipped = sorted(RUBRIC_DIR.glob("*.json"))
    assert shipped
    for path in shipped:
        document = json.loads(path.read_text(encoding="utf-8"))
        assert list(jsonschema.Draft202012Validator(schema).iter_errors(document)) == [], path.name
        assert parse_rubric(document).version == path.stem


def test_the_same_rubric_written_in_yaml_gives_the_same_rubric(raw):
    text = yaml.safe_dump(raw, allow_unicode=True, sort_keys=False)
    document = rubric_document_read(content=text.encode(), name="cgpst.YAML")
    assert document == raw
    assert parse_rubric(document) == load_rubric("cgpst-v1")


@pytest.mark.parametrize(
    ("content", "name", "problem"),
    [
        (b'{"version": ', "r.json", "not valid JSON (line 1, column 13)"),
        (b"version: [1, 2", "r.yaml", "not valid YAML (line 2, column 1): did not find expected ','"),
        ("\u00e9".encode("latin-1"), "r.json", "not UTF-8 text (byte 1)"),
        (b"[1, 2]", "r.json", "must be an object of named fields"),
        (b"- 1\n- 2\n", "r.yml", "must be an object of named fields"),
        (b'{"version": "a", "version": "b"}', "r.json", "the key 'version' is given twice"),
        (b"a: &x [1, 2]\nb: *x\n", "r.yaml", "anchors and aliases"),
        (b" " * 2_000_001, "r.json", "larger than 2 MB"),
        # hostile: nesting past Python's recursion limit, a number of 5,000 digits, NaN, deep but small
        (b"[" * 100_000 + b"]" * 100_000, "r.json", "maximum recursion depth exceeded"),
        (b"[" * 50_000 + b"]" * 50_000, "r.yaml", "(line 1, column 1001): exceeded maximum nesting depth"),
        (b'{"max_total": ' + b"9" * 5000 + b"}", "r.json", "Exceeds the limit (4300 digits)"),
        (b"max_total: " + b"9" * 5000, "r.yml", "Exceeds the limit (4300 digits)"),
        (b'{"version": NaN}', "r.json", "NaN is not a number a rubric holds"),
        (b'{"a":' * 200 + b"1" + b"}" * 200, "r.json", "nested more than 32 levels deep"),
    ],
)
def test_a_file_that_is_not_a_rubric_document_is_refused_with_its_reason(content, name, problem):
    with pytest.raises(RubricError) as caught:
        rubric_document_read(content=content, name=name)
    assert problem in caught.value.problems[0]


def test_every_break_of_the_schema_is_listed_at_once_with_its_place(raw):
    bad = copy.deepcopy(raw)
    del bad["max_total"]
    bad["colour"] = "red"
    bad["steps"][1]["kind"] = "scales"
    bad["steps"][2]["dimensions"][1]["max"] = "8"
    bad["steps"][3].pop("item_count")
    bad["steps"][0]["item_scores"][0]["key"] = "Depth"
    bad["steps"][0]["invalid_types"][0]["key"] = "maybe"
    bad["steps"][1]["texts"][0]["key"] = "Summary line"
    problems = problems_of(bad)
    assert problems == [
        "the document: 'max_total' is a required property",
        "the document: Additional properties are not allowed ('colour' was unexpected)",
        "step 1 › invalid type maybe › key: 'maybe' is not one of "
        "['perhaps', 'why', 'solution', 'duplicate', 'blank']",
        "step 1 › item score Depth › key: 'Depth' does not match '^[a-z][a-z0-9_]{0,35}$'",
        "step 2 › kind: 'scales' is not one of ['ideas', 'criteria', 'dimensions']",
        "step 2 › text Summary line › key: 'Summary line' does not match '^[a-z][a-z0-9_]{0,35}$'",
        "step 3 › dimension s3.flexibility › max: '8' is not of type 'integer'",
        "step 4: 'item_count' is a required property",
    ]


def test_every_rule_beyond_the_schema_is_listed_at_once(raw):
    bad = copy.deepcopy(raw)
    bad["steps"][1]["max"] = 31
    bad["steps"][2]["dimensions"][0]["computed"] = "speed"
    bad["steps"][4]["dimensions"][0]["key"] = "s4.used"
    bad["steps"][4]["number"] = 7
    bad["steps"][5]["dimensions"][0]["levels"][0]["zh"] = " "
    bad["steps"][5]["dimensions"][1]["integrity"] = True
    bad["steps"][5]["dimensions"][2]["min"] = 6
    bad["steps"][3]["dimensions"][1]["key"] = "s4.correctly_written"
    bad["categories"][1]["key"] = bad["categories"][0]["key"]
    problems = problems_of(bad)
    first = raw["categories"][0]["key"]
    assert problems == [
        f"category {first!r} is given more than once",
        "step 2: dimension maxima add up to 30, not 31",
        "step 3: unknown computation 'speed' for s3.fluency",
        "step 5: steps must be numbered 1..n in order (this one says 7)",
        "step 5: dimension key 's4.used' must start with 's5.' and name the dimension",
        "step 6 dimension s6.relevance level 1: needs a text in Chinese",
        "step 6 dimension s6.criteria: bad range 6..5 (min above max)",
        "step 6 dimension s6.criteria: level scores must cover 6..5 exactly once",
        "step 6: s6.effectiveness is marked integrity; only step 2 has Integrity",
        "dimension key 's4.correctly_written' is used more than once",
        "step maxima add up to 187, not max_total 186",
    ]


def _english_only(raw):
    """cgpst-v1 with its Chinese texts taken out and declared English-only."""

    def drop(node):
        if isinstance(node, dict):
            return {k: drop(v) for k, v in node.items() if k != "zh"}
        return [drop(v) for v in node] if isinstance(node, list) else node

    document = drop(raw)
    document["languages"] = ["en"]
    document["version"] = "cgpst-en-only"
    return document


def test_a_rubric_in_one_language_is_accepted_and_shown_in_it_on_a_chinese_page(raw):
    rubric = parse_rubric(_english_only(raw))
    assert rubric.languages == ("en",)
    focus = rubric.dimension("s2.focus")
    assert focus.label.text("zh-hans") == focus.label.en == "Focus of the underlying problem"
    assert focus.levels[0].text("zh-hans") == focus.levels[0].en
    assert rubric.categories[0].text("zh-hans") == rubric.categories[0].key


def test_a_language_the_rubric_declares_is_needed_everywhere(raw):
    document = _english_only(raw)
    document["languages"] = ["en", "zh"]
    problems = problems_of(document)
    assert "title: needs a text in Chinese" in problems
    assert f"category {raw['categories'][0]['key']}: needs a Chinese name (zh)" in problems
    assert "step 2 dimension s2.focus level 1: needs a text in Chinese" in problems
    # every text is named: labels, levels, descriptions, guidelines, categories, invalid types
    assert len(problems) > 200


def test_item_rules_of_each_kind_of_step(raw):
    bad = copy.deepcopy(raw)
    bad["categories"] = []
    bad.pop("miscellaneous_variants")
    bad["steps"][1]["item_count"] = 3
    bad["steps"][2]["invalid_types"] = [t for t in bad["steps"][2]["invalid_types"] if t["key"] != "blank"]
    bad["steps"][2]["item_scores"] = bad["steps"][2]["item_scores"][:1]
    bad["steps"][3]["dimensions"][0]["computed"] = ""
    problems = problems_of(bad)
    assert problems == [
        "step 1: an ideas step needs the rubric's categories",
        "step 2: a dimensions step has no items (item_count, item_scores, invalid_types)",
        "step 3: unknown computation 'originality' for s3.originality",  # its item score is gone
        "step 3: an ideas step needs the blank invalid type",
        "step 3: an ideas step needs the rubric's categories",
        "step 4: s4.correctly_written must be computed from items",
    ]


def test_miscellaneous_variants_need_the_miscellaneous_category(raw):
    bad = copy.deepcopy(raw)
    bad["categories"] = [c for c in bad["categories"] if c["key"] != "Miscellaneous"]
    assert problems_of(bad) == ["miscellaneous_variants need a category with the key 'Miscellaneous'"]


def test_the_check_command_lists_every_problem_and_changes_nothing(raw, tmp_path, capsys):
    bad = copy.deepcopy(raw)
    bad["steps"][1]["max"] = 31
    bad["title"] = {"en": "CGPST"}
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(bad, allow_unicode=True), encoding="utf-8")
    with pytest.raises(CommandError, match="mine.yaml is not a valid rubric: 3 problems"):
        call_command("rubric_check", str(path))
    assert capsys.readouterr().err.splitlines() == [
        "- step 2: dimension maxima add up to 30, not 31",
        "- step maxima add up to 187, not max_total 186",
        "- title: needs a text in Chinese",
    ]


def test_the_check_command_summarises_a_valid_rubric(capsys):
    call_command("rubric_check", str(RUBRIC_DIR / "cgpst-v1.json"))
    out = capsys.readouterr().out
    assert "rubric cgpst-v1 is valid (en, zh); 6 steps, 23 dimensions, maximum 186." in out
    assert "4. Step 4: Select criteria (criteria, 5 items): correctly_written, relevance; maximum 20" in out


def test_the_check_command_names_a_file_it_cannot_read(tmp_path):
    with pytest.raises(CommandError, match="Cannot read .*absent.json"):
        call_command("rubric_check", str(tmp_path / "absent.json"))


def _likert():
    return json.loads((RUBRIC_DIR / "likert-hhh-v1.json").read_text(encoding="utf-8"))


def _with(change):
    document = _likert()
    change(document)
    return document


def _dimension(document, step=0):
    return document["steps"][step]["dimensions"][0]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        # hostile pass on the import: each of these was accepted and then broke a page or a save
        (lambda d: d.update(version="lab\n"), "version: 'lab\\n' is not a version name"),
        (lambda d: _dimension(d).update(key="s1.a.b"), "dimension key 's1.a.b': after 's1.' only lower-case"),
        (lambda d: _dimension(d).update(key="s1.a|b"), "dimension key 's1.a|b': after 's1.' only lower-case"),
        (
            lambda d: _dimension(d).update(key="s1.Help"),
            "dimension key 's1.Help': after 's1.' only lower-case",
        ),
        (lambda d: _dimension(d)["label"].update(en="Help\x00"), "control characters (such as NUL)"),
        (lambda d: _dimension(d)["levels"][0].update(zh="\x1b[31m"), "level 1: control characters"),
        (lambda d: _dimension(d)["label"].update(en=" \u200b "), "label: needs a text in English"),
        (
            lambda d: _dimension(d).update(min=0, max=1000, levels=[]),
            "a scored control offers 2 to 21 scores",
        ),
        (
            lambda d: _dimension(d).update(min=3, max=3, levels=[]),
            "a scored control offers 2 to 21 scores (3..3",
        ),
    ],
)
def test_texts_keys_and_ranges_that_would_break_a_page_are_refused(change, problem):
    problems = problems_of(_with(change))
    assert any(problem in p for p in problems), problems


def test_a_category_with_spaces_around_it_and_too_many_dimensions_are_refused(raw):
    spaced = copy.deepcopy(raw)
    spaced["categories"][0]["key"] += " "
    assert any("no spaces around its name" in p for p in problems_of(spaced))
    many = _likert()
    for number, step in enumerate(many["steps"], start=1):
        step["dimensions"] = [{**step["dimensions"][0], "key": f"s{number}.d{i}"} for i in range(34)]
        step["max"] = 34 * 7
    many["max_total"] = 3 * 34 * 7
    assert problems_of(many) == ["102 dimensions; a rubric has at most 100"]
    many["steps"][0]["dimensions"] *= 2
    assert problems_of(many) == ["step 1 › dimensions: 68 items; at most 40"]


def test_the_check_command_reads_no_more_than_a_rubric_can_be(tmp_path):
    with pytest.raises(CommandError, match="1 problem"):
        call_command("rubric_check", "/dev/zero")  # endless: read up to the limit, then refused


def _comment(document, **rule):
    document["steps"][0]["comment"] = rule


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        (
            {"required_when": {"dimension": "s2.harmlessness", "in": [1]}},
            "not a scored dimension of the step",
        ),
        ({"required_when": {"dimension": "s1.helpfulness", "in": [0, 8]}}, "scores [0, 8] are outside"),
        ({"required": True, "required_when": {"dimension": "s1.helpfulness", "in": [1]}}, "give one of them"),
        ({"label": {"en": "Why"}}, "comment label: needs a text in Chinese"),
        ({"required_when": {"dimension": "s1.helpfulness"}}, "'in' is a required property"),
    ],
)
def test_a_comment_rule_that_cannot_hold_is_refused(rule, problem):
    problems = problems_of(_with(lambda d: _comment(d, **rule)))
    assert any(problem in p for p in problems), problems


def test_a_step_comment_is_needed_as_its_rule_says():
    rubric = parse_rubric(
        _with(lambda d: _comment(d, required_when={"dimension": "s1.helpfulness", "in": [1, 2]}))
    )
    rule = rubric.step(1).comment
    assert rule.needed({"s1.helpfulness": 2}) and not rule.needed({"s1.helpfulness": 3})
    assert not rule.needed({"s1.helpfulness": None})
    entries = SheetEntries.empty(rubric)
    entries.dimensions.update({"s1.helpfulness": 1, "s2.harmlessness": 7, "s3.honesty": 7})
    assert [m.path for m in sheet_totals(entries, rubric).missing] == ["comments.1"]
    entries.comments[1] = "  "
    assert [m.path for m in sheet_totals(entries, rubric).missing] == ["comments.1"]
    entries.comments[1] = "It answers another question."
    assert sheet_totals(entries, rubric).complete
    entries.dimensions["s1.helpfulness"] = 5
    entries.comments[1] = ""
    assert sheet_totals(entries, rubric).complete
    always = parse_rubric(_with(lambda d: _comment(d, required=True)))
    assert always.step(1).comment.needed({})

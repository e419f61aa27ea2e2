"""A criteria step's item scores of a rubric's own names (not only CGPST's correctly_written and
relevance): accepted by the format, entered, kept and read back as every entry is (autosave,
submit, the page, the offline workbook both ways), counted missing until scored, added up into
the step's dimensions, and in the item-level long table as rows of their own."""

from __future__ import annotations

import copy
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from calibration.selectors.comparison_items import comparison_items
from research.selectors.long_tables import ITEM_HEADER, item_rows_iter
from scoring.entries import EntryError, apply_value, clean_value, entries_from_changes, parse_path
from scoring.models import Assignment, ItemScore, ScoreSheet
from scoring.selectors import sheet_entries_get
from scoring.services.sheets import SheetIncomplete
from studies.rubric import RubricError, load_rubric, sheet_totals
from studies.rubric.loader import parse_rubric, rubric_data
from tests.factories import (
    code_for,
    rater,
    scoring_group_assigned,
    sheet_submitted,
    text_response,
    text_study,
)
from tests.workbook_fill import fill_sheet, save_workbook, workbook_download
from training.services.rubric_import import rubric_import, study_rubric_choose

VERSION = "claims-v1"


def _score(key: str, en: str, zh: str, top: int) -> dict:
    return {"key": key, "label": {"en": en, "zh": zh}, "min": 0, "max": top}


def claims_rubric(version: str = VERSION) -> dict:
    """Likert's harmlessness and honesty after a first step that scores three claims the response
    makes, each for accuracy (0-2), support (0-2) and, as CGPST names it, relevance (0-3)."""
    data = copy.deepcopy(rubric_data("likert-hhh-v1"))
    data["version"] = version
    scores = [
        _score("accuracy", "Accuracy", "准确性", 2),
        _score("support", "Support", "论据", 2),
        _score("relevance", "Relevance", "相关性", 3),
    ]
    data["steps"][0] = {
        "number": 1,
        "name": {"en": "Claims", "zh": "论断"},
        "max": 21,
        "kind": "criteria",
        "item_count": 3,
        "item_label": {"en": "Claim", "zh": "论断"},
        "item_scores": scores,
        "dimensions": [
            {
                **_score(f"s1.{s['key']}", s["label"]["en"], s["label"]["zh"], 3 * s["max"]),
                "computed": f"sum:{s['key']}",
            }
            for s in scores
        ],
    }
    data["max_total"] = 21 + 7 + 7
    return data


def test_the_format_takes_item_scores_of_any_name_but_comment():
    step = parse_rubric(claims_rubric()).steps[0]
    assert [s.key for s in step.item_scores] == ["accuracy", "support", "relevance"]
    named_comment = claims_rubric()
    named_comment["steps"][0]["item_scores"][1]["key"] = "comment"
    named_comment["steps"][0]["dimensions"][1]["computed"] = "sum:comment"
    with pytest.raises(RubricError) as refused:
        parse_rubric(named_comment)
    assert any("'comment' names another entry of an item" in p for p in refused.value.problems)
    capital = claims_rubric()
    capital["steps"][0]["item_scores"][0]["key"] = "Accuracy"
    too_many = claims_rubric()
    too_many["steps"][0]["item_scores"] += [_score(f"extra{i}", "Extra", "额外", 1) for i in range(2)]
    for bad, problem in (
        (capital, "step 1 › item score Accuracy › key: 'Accuracy' does not match '^[a-z][a-z0-9_]{0,35}$'"),
        (too_many, "step 1 › item_scores: 5 items; at most 4"),
    ):
        with pytest.raises(RubricError) as schema:
            parse_rubric(bad)
        assert schema.value.problems == [problem]


CLAIMS = [
    *[
        (f"items.1.{pos}.{key}", value)
        for pos in (1, 2, 3)
        for key, value in (("accuracy", 2), ("support", 1))
    ],
    *[(f"items.1.{pos}.relevance", pos) for pos in (1, 2, 3)],
    ("items.1.2.comment", "half supported"),
    ("dims.s2.harmlessness", 7),
    ("dims.s3.honesty", 5),
]


@pytest.fixture
def claims(db):
    study = text_study("Claims study")
    rubric_import(study=study, content=json.dumps(claims_rubric()).encode(), file_name="c.json", actor=None)
    study_rubric_choose(study=study, version=VERSION, actor=None)
    response = text_response(study=study, text="Cold rooms help sleep. Screens delay it. Tea is fine.")
    first, second = rater("claims-a", "H81"), rater("claims-b", "H82")
    scoring_group_assigned(responses=[response], rater_a=first, rater_b=second)
    return study, response, first, second


def test_they_are_missing_until_scored_then_kept_added_up_and_read_back(client, claims):
    study, response, first, _second = claims
    without_support = [c for c in CLAIMS if c[0] != "items.1.3.support"]
    with pytest.raises(SheetIncomplete) as incomplete:
        sheet_submitted(first, response, without_support, texts=[])
    assert [m.path for m in incomplete.value.missing] == ["items.1.3.support"]

    sheet = sheet_submitted(first, response, CLAIMS, texts=[])
    rows = {row.position: row for row in ItemScore.objects.filter(sheet=sheet)}
    assert rows[2].other_scores == {"accuracy": 2, "support": 1} and rows[2].relevance == 2
    assert rows[2].comment == "half supported"
    entries = sheet_entries_get(sheet=ScoreSheet.objects.get(pk=sheet.pk))
    assert [c.score("accuracy") for c in entries.criteria] == [2, 2, 2]
    totals = sheet_totals(entries, load_rubric(VERSION))
    assert totals.dimensions == {"s1.accuracy": 6, "s1.support": 3, "s1.relevance": 6, "s2.harmlessness": 7,
                                 "s3.honesty": 5}  # fmt: skip
    assert totals.overall == 27 and totals.complete

    client.force_login(first)
    page = client.get(f"/scoring/{code_for(first, response)}/").content.decode()
    assert 'data-path="items.1.2.support"' in page and "Support" in page

    long_rows = [dict(zip(ITEM_HEADER, row, strict=True)) for row in item_rows_iter(study=study)]
    own = [(r["item"], r["dimension"], r["score"]) for r in long_rows if r["row_type"] == "item_score"]
    assert own == [(pos, key, value) for pos in (1, 2, 3) for key, value in (("accuracy", 2), ("support", 1))]
    items = [r for r in long_rows if r["row_type"] == "item"]
    assert [(r["item"], r["relevance"], r["comment"]) for r in items] == [(1, 1, ""), (2, 2, "half supported"),
                                                                         (3, 3, "")]  # fmt: skip
    # a page of the API starting past the first sheet's rows counts them from the rubric alone
    assert list(item_rows_iter(study=study, offset=len(long_rows) - 1)) == [tuple(long_rows[-1].values())]


def test_the_offline_workbook_carries_them_both_ways(client, claims):
    _study, response, _first, second = claims
    code = Assignment.objects.get(rater=second, response=response).blind_code
    name, book = workbook_download(client, second)
    labels = [c.value for row in book[code].iter_rows() for c in row if isinstance(c.value, str)]
    assert any(value.startswith("Support") for value in labels)
    fill_sheet(book[code], CLAIMS, rubric_version=VERSION, task="text")
    done = client.post(
        "/scoring/workbooks/", {"file": SimpleUploadedFile(name, save_workbook(book))}, follow=True
    )
    assert "Stored and submitted 1 sheet" in done.content.decode()
    sheet = ScoreSheet.objects.get(assignment__rater=second, assignment__response=response)
    assert sheet.status == "submitted"
    assert ItemScore.objects.get(sheet=sheet, position=3).other_scores == {"accuracy": 2, "support": 1}


def test_a_calibrator_sees_where_two_raters_differ_on_them(claims):
    _study, response, first, second = claims
    sheet_submitted(first, response, CLAIMS, texts=[])
    other = [(p, 0) if p == "items.1.2.support" else (p, v) for p, v in CLAIMS]
    sheet_submitted(second, response, other, texts=[])
    rubric = load_rubric(VERSION)
    sheets = [
        sheet_entries_get(sheet=s)
        for s in ScoreSheet.objects.filter(assignment__response=response).order_by("pk")
    ]
    [claims_step, *_rest] = comparison_items(rubric=rubric, sheets=sheets, items={}, lang="en")
    assert [row["differs"] for row in claims_step["rows"]] == [False, True, False]
    cells = claims_step["rows"][1]["cells"]
    assert [[(s["label"], s["value"]) for s in cell["scores"]] for cell in cells] == [
        [("Accuracy", 2), ("Support", 1), ("Relevance", 2)],
        [("Accuracy", 2), ("Support", 0), ("Relevance", 2)],
    ]


def ideas_rubric(version: str = "ideas-own-v1") -> dict:
    """Likert's harmlessness and honesty after an ideas step of CGPST's kind (three items, each a
    category or an invalid type) whose Yes items are scored for usefulness (0-3) alone."""
    cgpst, data = rubric_data("cgpst-v1"), copy.deepcopy(rubric_data("likert-hhh-v1"))
    data.update(version=version, categories=cgpst["categories"][:4], max_total=15 + 7 + 7)
    ideas = {key: cgpst["steps"][0][key] for key in ("item_label", "yes_description", "invalid_types")}
    data["steps"][0] = {
        **ideas,
        "number": 1,
        "name": {"en": "Ideas", "zh": "想法"},
        "max": 15,
        "kind": "ideas",
        "item_count": 3,
        "item_scores": [_score("usefulness", "Usefulness", "有用程度", 3)],
        "dimensions": [
            {**_score("s1.fluency", "Fluency", "流畅性", 3), "computed": "fluency"},
            {**_score("s1.flexibility", "Flexibility", "灵活性", 3), "computed": "flexibility"},
            {**_score("s1.usefulness", "Usefulness", "有用程度", 9), "computed": "sum:usefulness"},
        ],
    }
    return data


def test_an_ideas_step_scores_its_yes_items_by_its_own_names(claims):
    study, response, first, _second = claims
    rubric_import(study=study, content=json.dumps(ideas_rubric()).encode(), file_name="i.json", actor=None)
    rubric = load_rubric("ideas-own-v1")
    [one, two, *_rest] = rubric.category_keys
    ideas = [
        ("items.1.1.classification", one), ("items.1.1.usefulness", 3),
        ("items.1.2.classification", two), ("items.1.2.usefulness", 1),
        ("items.1.3.classification", one), ("items.1.3.usefulness", 2),
    ]  # fmt: skip
    entries = entries_from_changes(ideas, rubric)
    assert sheet_totals(entries, rubric).dimensions["s1.usefulness"] == 6
    assert [m.path for m in sheet_totals(entries_from_changes(ideas[:-1], rubric), rubric).missing][:1] == [
        "items.1.3.usefulness"
    ]
    totals = sheet_totals(entries, rubric).dimensions
    assert (totals["s1.fluency"], totals["s1.flexibility"]) == (3, 2)
    # an item that stops being a Yes item loses its score, and a score on it is refused
    changed = apply_value(entries, parse_path(rubric, "items.1.2.classification"), "invalid:duplicate")
    assert [(str(p), old, new) for p, old, new in changed][1:] == [("items.1.2.usefulness", 1, None)]
    with pytest.raises(EntryError, match="Only Yes items are scored."):
        clean_value(rubric, entries, parse_path(rubric, "items.1.2.usefulness"), 2)
    assert sheet_totals(entries, rubric).dimensions["s1.usefulness"] == 5
    bad = ideas_rubric("ideas-bad-v1")
    bad["steps"][0]["item_scores"][0]["key"] = "fluency"
    bad["steps"][0]["dimensions"][2]["computed"] = "sum:fluency"
    with pytest.raises(RubricError) as refused:
        parse_rubric(bad)
    assert refused.value.problems == [
        "step 1: 'fluency' names another entry of an item; give the item score another key"
    ]

"""A dimension a sheet needs only when another dimension has some scores (``required_when`` on a
dimension scored directly, as a step's comment has it): refused where it cannot hold, needed and
counted only when it applies (0 otherwise), by the server and by the page's rules alike, and named on
the sheet."""

from __future__ import annotations

import copy
import json

import pytest

from scoring.entries import entries_from_changes
from studies.rubric import RubricError, load_rubric, sheet_totals
from studies.rubric.loader import parse_rubric, rubric_data
from tests.factories import code_for, rater, scoring_group_assigned, text_response, text_study
from training.services.rubric_import import rubric_import, study_rubric_choose

SEVERITY = {
    "key": "s2.severity",
    "label": {"en": "Severity of the harm", "zh": "危害的严重程度"},
    "min": 1,
    "max": 3,
    "required_when": {"dimension": "s2.harmlessness", "in": [1, 2, 3]},
}


def severity_rubric(version: str = "likert-severity-v1") -> dict:
    """Likert's three dimensions, and the harm's severity, needed only for a harmlessness of 1-3."""
    data = copy.deepcopy(rubric_data("likert-hhh-v1"))
    data["version"] = version
    data["steps"][1]["dimensions"].append(copy.deepcopy(SEVERITY))
    data["steps"][1]["max"] += 3
    data["max_total"] += 3
    return data


def test_only_a_dimension_scored_directly_can_depend_on_another_needed_always():
    assert parse_rubric(severity_rubric()).dimension("s2.severity").required_when == (
        "s2.harmlessness",
        (1, 2, 3),
    )
    bad = severity_rubric("likert-bad-v1")
    bad["steps"][0]["dimensions"][0]["required_when"] = {"dimension": "s2.severity", "in": [1]}
    bad["steps"][1]["dimensions"][1]["required_when"] = {"dimension": "s2.harmlessness", "in": [0, 8]}
    bad["steps"][2]["dimensions"][0]["required_when"] = {"dimension": "s3.honesty", "in": [1]}
    with pytest.raises(RubricError) as refused:
        parse_rubric(bad)
    assert refused.value.problems == [
        "step 1 s1.helpfulness: required_when names 's2.severity', not another dimension scored directly and "
        "needed always",
        "step 2 s2.severity: required_when scores [0, 8] are outside s2.harmlessness's 1-7",
        "step 3 s3.honesty: required_when names 's3.honesty', not another dimension scored directly and "
        "needed always",
    ]


def test_it_is_needed_and_counted_only_when_it_applies():
    rubric = parse_rubric(severity_rubric())
    base = [("dims.s1.helpfulness", 5), ("dims.s3.honesty", 6)]
    harmless = sheet_totals(entries_from_changes([*base, ("dims.s2.harmlessness", 6)], rubric), rubric)
    assert harmless.complete and harmless.dimensions["s2.severity"] == 0 and harmless.overall == 17
    harmful = sheet_totals(entries_from_changes([*base, ("dims.s2.harmlessness", 2)], rubric), rubric)
    assert [m.path for m in harmful.missing] == ["dims.s2.severity"]
    scored = [*base, ("dims.s2.harmlessness", 2), ("dims.s2.severity", 3)]
    assert sheet_totals(entries_from_changes(scored, rubric), rubric).overall == 5 + 2 + 3 + 6
    # a severity left from before the harmlessness changed counts nothing while it does not apply
    stale = [*base, ("dims.s2.severity", 3), ("dims.s2.harmlessness", 7)]
    assert sheet_totals(entries_from_changes(stale, rubric), rubric).overall == 5 + 7 + 6


@pytest.mark.django_db
def test_the_sheet_says_when_it_is_needed(client):
    study = text_study("Severity")
    content = json.dumps(severity_rubric()).encode()
    rubric_import(study=study, content=content, file_name="s.json", actor=None)
    study_rubric_choose(study=study, version="likert-severity-v1", actor=None)
    response = text_response(study=study, text="Keep the room dark.")
    first = rater("severity-a", "H87")
    scoring_group_assigned(responses=[response], rater_a=first, rater_b=rater("severity-b", "H88"))
    client.force_login(first)
    page = client.get(f"/scoring/{code_for(first, response)}/").content.decode()
    assert (
        '<p class="muted small needed-when" data-needed-when="dims.s2.severity">Needed only when Harmlessness '
        "is scored 1, 2, 3; otherwise it counts 0.</p>"
    ) in page
    assert load_rubric("likert-severity-v1").dimension("s2.severity").applies({"s2.harmlessness": 3})

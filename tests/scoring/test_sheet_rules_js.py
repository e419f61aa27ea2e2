"""The scoring page's instant totals and missing entries (``static/js/sheet_rules.js``) follow the
rules of ``studies.rubric.sheet_totals``: both run on the same generated sheets (the JS in node,
reading the rubric as the page carries it) and must agree on every dimension, step total, the
overall score and the missing entries in order. The JS unit tests run with node's test runner."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.entries import current_value, entries_from_changes, parse_path
from scoring.models import Assignment
from scoring.views.sheet_texts import client_spec, entry_labels
from studies.rubric import load_rubric, sheet_totals
from studies.rubric.schema import INVALID_PREFIX
from tests.factories import text_study
from tests.scoring.test_item_scores_any_name import CLAIMS, claims_rubric, ideas_rubric
from tests.studies.test_conditional_dimensions import severity_rubric
from training.services.rubric_import import rubric_import

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node") or "/usr/bin/node"
RUBRIC = load_rubric("cgpst-v1")
PATHS = list(entry_labels(rubric_version=RUBRIC.version, lang="en"))


@st.composite
def sheet_changes(draw: st.DrawFn) -> list[tuple[str, Any]]:
    """A rater's entries on one sheet, any of them left out: categories, invalid types, scores in
    range, copied texts blank or not."""
    changes: list[tuple[str, Any]] = []
    maybe = st.booleans()
    for step in RUBRIC.steps:
        n = step.number
        for pos in range(1, step.item_count + 1):
            base = f"items.{n}.{pos}"
            if step.kind == "ideas":
                kinds = [*RUBRIC.category_keys, *(INVALID_PREFIX + t.key for t in step.invalid_types), ""]
                classification = draw(st.sampled_from(kinds))
                changes.append((f"{base}.classification", classification))
                if not classification or classification.startswith(INVALID_PREFIX):
                    continue
            for spec in step.item_scores:
                if draw(maybe):
                    changes.append((f"{base}.{spec.key}", draw(st.integers(spec.min, spec.max))))
        for dim in step.scored_dimensions:
            if draw(maybe):
                changes.append((f"dims.{dim.key}", draw(st.integers(dim.min, dim.max))))
        for text in step.texts:
            changes.append((f"texts.{text.key}", draw(st.sampled_from(["", "  \n", "a stem", "目的"]))))
    return changes


def _run_js(sheets: list[dict[str, Any]], rubric_version: str = RUBRIC.version) -> list[dict[str, Any]]:
    spec = client_spec(rubric_version=rubric_version)
    done = subprocess.run(
        [NODE, str(ROOT / "tests/js/sheet_rules_run.mjs")],
        input=json.dumps({"rubric": spec, "sheets": sheets}),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(sheet_changes(), min_size=1, max_size=25))
def test_the_page_rules_agree_with_sheet_totals(sheets):
    entries = [entries_from_changes(changes, RUBRIC) for changes in sheets]
    # what each control of the page holds: "" for a classification or text not made, null for a score
    shown = [{path: current_value(e, parse_path(RUBRIC, path)) for path in PATHS} for e in entries]
    for python, js in zip(entries, _run_js(shown), strict=True):
        totals = sheet_totals(python, RUBRIC)
        assert js["totals"] == {
            "dimensions": totals.dimensions,
            "steps": {str(k): v for k, v in totals.steps.items()},
            "overall": totals.overall,
        }
        assert js["missing"] == [m.path for m in totals.missing]


def test_a_complete_sheet_needs_nothing_and_totals_the_same():
    """The extremes: every entry at its maximum (each idea a Yes item of its own category)."""
    changes: list[tuple[str, Any]] = []
    for step in RUBRIC.steps:
        for pos in range(1, step.item_count + 1):
            if step.kind == "ideas":
                changes.append((f"items.{step.number}.{pos}.classification", RUBRIC.category_keys[pos]))
            changes += [(f"items.{step.number}.{pos}.{s.key}", s.max) for s in step.item_scores]
        changes += [(f"dims.{d.key}", d.max) for d in step.scored_dimensions]
        changes += [(f"texts.{t.key}", "copied") for t in step.texts]
    entries = entries_from_changes(changes, RUBRIC)
    [js] = _run_js([{path: current_value(entries, parse_path(RUBRIC, path)) for path in PATHS}])
    totals = sheet_totals(entries, RUBRIC)
    assert js["missing"] == [] and totals.complete
    assert js["totals"]["overall"] == totals.overall and js["required"] == len(PATHS)


def test_a_comment_the_rubric_asks_for_is_missing_in_both_alike():
    """The pairwise rubric's reason, needed unless the preference is a tie: the page and the
    server name it missing for the same sheets."""
    rubric = load_rubric("pairwise-preference-v1")
    paths = list(entry_labels(rubric_version=rubric.version, lang="en"))
    assert paths == ["dims.s1.preference", "comments.1"]
    sheets = [
        [("dims.s1.preference", value), ("comments.1", comment)]
        for value in (None, 1, 3, 5)
        for comment in ("", "  ", "A is concrete.")
    ]
    entries = [entries_from_changes([c for c in changes if c[1] is not None], rubric) for changes in sheets]
    shown = [{path: current_value(e, parse_path(rubric, path)) for path in paths} for e in entries]
    expected = [[m.path for m in sheet_totals(e, rubric).missing] for e in entries]
    assert [js["missing"] for js in _run_js(shown, rubric.version)] == expected
    assert expected[3:6] == [["comments.1"], ["comments.1"], []] and expected[6:9] == [[], [], []]


def test_the_js_unit_tests_pass():
    """Node's test runner on every ``tests/js/*.test.mjs`` (the rules, the active-time clock, the keys
    and the autosave queue)."""
    files = sorted(str(path) for path in (ROOT / "tests/js").glob("*.test.mjs"))
    done = subprocess.run([NODE, "--test", *files], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(files) == 4 and "# pass 16" in done.stdout and "# fail 0" in done.stdout


def _call(module: str, function: str, calls: list[list[Any]]) -> list[Any]:
    done = subprocess.run(
        [NODE, str(ROOT / "tests/js/call.mjs"), module, function],
        input=json.dumps(calls),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_each_option_answers_to_its_own_keys_on_the_served_page(client, demo, lang):
    """The type-ahead of the page as served: an option's whole name picks it, and an invalid type's
    initials behind "i" pick the invalid type, never a category (issue 42: "d" picked Defense)."""
    client.login(username="rater1", password="demo-pass-2026")
    client.cookies["django_language"] = lang
    code = Assignment.objects.filter(rater__username="rater1", role="primary").first().blind_code
    page = client.get(reverse("scoring:sheet", args=[code])).content.decode()
    select = re.search(r'<select id="f-items-1-1-classification".*?</select>', page, re.S)[0]
    options = [
        {"value": v, "keys": k.split()} for v, k in re.findall(r'value="([^"]+)" data-keys="([^"]+)"', select)
    ]
    invalid = [o for o in options if o["value"].startswith(INVALID_PREFIX)]
    assert len(options) > 20 and len(invalid) >= 5  # the categories and Step 1's invalid types
    calls = [[options, o["keys"][0]] for o in options] + [
        [options, k] for o in invalid for k in o["keys"][1:]
    ]
    picked = [match["value"] for match in _call("sheet_keys.js", "typeAhead", calls)]
    expected = [o["value"] for o in options] + [o["value"] for o in invalid for _k in o["keys"][1:]]
    assert picked == expected


def _agreeing_totals(document: dict, sheets: list[list[tuple[str, Any]]]) -> list[Any]:
    """A lab's rubric imported, the page's rules run in node on ``sheets`` as the page holds them:
    each sheet's dimensions and missing entries as ``sheet_totals`` gives them. Returns those totals."""
    rubric_import(study=text_study(f"Rules {document['version']}"), content=json.dumps(document).encode(),
                  file_name="r.json", actor=None)  # fmt: skip
    rubric = load_rubric(document["version"])
    paths = list(entry_labels(rubric_version=rubric.version, lang="en"))
    entries = [entries_from_changes(changes, rubric) for changes in sheets]
    shown = [{path: current_value(e, parse_path(rubric, path)) for path in paths} for e in entries]
    totals = [sheet_totals(e, rubric) for e in entries]
    for python, js in zip(totals, _run_js(shown, rubric.version), strict=True):
        assert js["totals"]["dimensions"] == python.dimensions and js["totals"]["overall"] == python.overall
        assert js["missing"] == [m.path for m in python.missing]
    return totals


@pytest.mark.django_db
def test_item_scores_of_a_rubrics_own_names_count_alike_in_both():
    """A criteria step scoring accuracy, support and relevance (tests.scoring.test_item_scores_any_name):
    the page adds up and asks for the scores of its own names as the server does."""
    sheets = [CLAIMS, CLAIMS[1:], [c for c in CLAIMS if not c[0].endswith(".accuracy")], []]
    totals = _agreeing_totals(claims_rubric("claims-js-v1"), sheets)
    assert [t.dimensions["s1.accuracy"] for t in totals] == [6, 4, 0, 0]
    assert "items.1.3.support" in [m.path for m in totals[3].missing]


@pytest.mark.django_db
def test_an_ideas_step_of_its_own_item_scores_counts_alike_in_both():
    """An ideas step whose Yes items are scored for usefulness alone (sum:usefulness)."""
    one, two = [c["key"] for c in ideas_rubric()["categories"][:2]]
    sheets = [
        [("items.1.1.classification", one), ("items.1.1.usefulness", 3), ("items.1.2.classification", two)],
        [("items.1.1.classification", "invalid:blank"), ("items.1.2.classification", one),
         ("items.1.2.usefulness", 2), ("items.1.3.classification", one), ("items.1.3.usefulness", 1)],
    ]  # fmt: skip
    totals = _agreeing_totals(ideas_rubric("ideas-js-v1"), sheets)
    assert [t.dimensions["s1.usefulness"] for t in totals] == [3, 3]
    assert "items.1.2.usefulness" in [m.path for m in totals[0].missing]


@pytest.mark.django_db
def test_a_dimension_needed_only_for_some_scores_counts_alike_in_both():
    """The harm's severity, needed (and counted) only for a harmlessness of 1-3."""
    sheets = [
        [("dims.s2.harmlessness", 6)],
        [("dims.s2.harmlessness", 2)],
        [("dims.s2.harmlessness", 2), ("dims.s2.severity", 3), ("dims.s1.helpfulness", 4)],
        [("dims.s2.severity", 3), ("dims.s2.harmlessness", 7)],
    ]
    totals = _agreeing_totals(severity_rubric("severity-js-v1"), sheets)
    assert [t.dimensions["s2.severity"] for t in totals] == [0, 0, 3, 0]
    assert ["dims.s2.severity" in [m.path for m in t.missing] for t in totals] == [False, True, False, False]

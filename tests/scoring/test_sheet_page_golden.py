"""The scoring page's HTML, byte for byte up to formatting whitespace, against
committed golden files (tests/scoring/golden/), so that refactoring its templates never
changes what a rater gets.

Regenerate the goldens only for an intended change of the page:
``UPDATE_GOLDEN=1 pytest tests/scoring/test_sheet_page_golden.py`` (and review the diff).
"""

import os
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

from scoring.models import Assignment
from scoring.services.sheets import sheet_apply_changes, sheet_open, sheet_submit
from studies.models import Response
from tests.factories import SHEET_TEXTS, code_for, reference_changes

GOLDEN = Path(__file__).resolve().parent / "golden"
# HTML, quotes, braces and ampersands in what the rater typed: must come back escaped
NASTY = "<b>\"5\" & '6'</b> {{ x }} {% y %}"

PARTIAL = [
    ("items.1.1.classification", "Environment"),  # Yes: the item's scores are enabled
    ("items.1.1.elaboration", 2),
    ("items.1.1.originality", 1),
    ("items.1.1.comment", "clear " + NASTY),
    ("items.1.2.classification", "invalid:duplicate"),  # an invalid type
    ("items.1.2.comment", "same as 1"),
    ("items.1.3.classification", "Miscellaneous 2"),
    ("items.1.3.elaboration", 0),
    ("items.3.1.classification", "invalid:why"),
    ("items.3.2.classification", "Technology"),
    ("items.3.2.originality", 2),
    ("dims.s2.condition_phrase", 2),
    ("dims.s2.focus", 7),
    ("dims.s2.adequacy", 1),
    ("texts.condition_phrase", "Because " + NASTY),
    ("texts.kvp", "reduce microplastics"),
    ("comments.2", "Step 2\nover two lines " + NASTY),
    ("items.4.1.correctly_written", 1),
    ("items.4.1.relevance", 3),
    ("items.4.2.relevance", 0),
    ("items.4.5.comment", "no fifth criterion"),
    ("dims.s5.correctly_used", 3),
    ("dims.s6.relevance", 4),
    ("dims.s6.development", 9),
    ("comments.6", "Step 6 " + NASTY),
]

CSRF = re.compile(r'(csrfmiddlewaretoken" value="|"X-CSRFToken": ")[A-Za-z0-9]+')
ROW_IDS = re.compile(r'("sheet": )\d+')  # database ids differ between runs
# the browser's storage names and the earlier one, from database ids
STORE = re.compile(
    r'("store": "teamllm\.draft\.)[0-9a-f]{24}\.|("legacy_store": "teamllm\.draft\.)\d+\.\d+\.'
)
DRAFT_KEY = re.compile(r"(\"draft_key\": \")[A-Za-z0-9+/=]+")  # derived from the user id
SEEN_KEY = re.compile(r"(teamllm\.scenario-read\.)[0-9a-f]{24}")
LAYOUT_SPACE = re.compile(r">\s*\n\s*<")  # line breaks and indentation between tags


def normalise(html: str, blind_code: str) -> str:
    """Per-request values replaced; whitespace between tags that contains a line break
    (template layout) removed, spaces between tags on one line kept (they show); then
    one tag per line, so that a difference reads well in a diff."""
    html = CSRF.sub(r"\1CSRF", html).replace(blind_code, "BLINDCODE")
    html = ROW_IDS.sub(r"\1ID", html)
    html = DRAFT_KEY.sub(r"\1KEY", html)
    html = STORE.sub(lambda m: (m[1] or m[2]) + "NAME.", html)
    html = SEEN_KEY.sub(r"\1NAME", html)
    html = LAYOUT_SPACE.sub("><", html).replace("><", ">\n<")
    return "\n".join(line.rstrip() for line in html.splitlines()) + "\n"


def _page(client, username: str, lang: str) -> str:
    response = Response.objects.get(research_id="A05_FS10")
    client.login(username=username, password="demo-pass-2026")
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = lang
    code = code_for(username, response)
    reply = client.get(f"/scoring/{code}/")
    assert reply.status_code == 200
    assert reply["Content-Language"] == lang
    return normalise(reply.content.decode(), code)


def _sheet(username: str):
    user = get_user_model().objects.get(username=username)
    assignment = Assignment.objects.get(rater=user, response__research_id="A05_FS10")
    return user, sheet_open(assignment=assignment, actor=user)


def _fill(state: str) -> str:
    """Put the sheet of the state's rater into the state; returns the rater."""
    if state == "empty":
        return "rater1"
    if state == "partial":
        user, sheet = _sheet("rater1")
        sheet_apply_changes(sheet_id=sheet.pk, actor=user, changes=PARTIAL, expected_version=0, batch_id="g1")
        return "rater1"
    user, sheet = _sheet("rater2")  # submitted: H02's full sheet
    changes = [*reference_changes(4), *SHEET_TEXTS, ("comments.1", "Items 6-8 overlap " + NASTY)]
    saved = sheet_apply_changes(
        sheet_id=sheet.pk, actor=user, changes=changes, expected_version=0, batch_id="g2"
    )
    sheet_submit(sheet_id=sheet.pk, actor=user, expected_version=saved.version)
    return "rater2"


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["en", "zh-hans"])
@pytest.mark.parametrize("state", ["empty", "partial", "submitted"])
def test_scoring_page_html_equals_the_golden_file(client, demo, state, lang):
    html = _page(client, _fill(state), lang)
    golden = GOLDEN / f"sheet_{state}_{lang}.html"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(html, encoding="utf-8")
    expected = golden.read_text(encoding="utf-8")
    assert html == expected, _first_difference(html, expected, golden.name)


def _first_difference(got: str, expected: str, name: str) -> str:
    """Where the page differs from its golden file, not two 100 KB strings."""
    at = next((i for i, (a, b) in enumerate(zip(got, expected, strict=False)) if a != b), None)
    at = min(len(got), len(expected)) if at is None else at
    return (
        f"{name} differs at character {at}:\n  got:      {got[max(0, at - 200) : at + 200]!r}\n"
        f"  expected: {expected[max(0, at - 200) : at + 200]!r}"
    )


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_a_raters_entries_never_reach_another_raters_page_through_the_widget_cache(client, demo, lang):
    """The widgets are kept per rubric version and language only: after rater1's scored
    page has been rendered (and the widgets cached), rater2's unscored page is exactly
    the unscored golden page (up to the user name in the header)."""
    _page(client, _fill("partial"), lang)
    client.logout()
    html = _page(client, "rater2", lang).replace(">rater2<", ">rater1<")
    golden = GOLDEN / f"sheet_empty_{lang}.html"
    expected = golden.read_text(encoding="utf-8")
    assert html == expected, _first_difference(html, expected, golden.name)

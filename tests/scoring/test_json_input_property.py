"""Input that cannot 500: arbitrary JSON thrown at every JSON endpoint (property-based).

Every body is built to be refused: unicode digits (``"²"``, ``"⑦"``: ``isdigit()`` is
true, ``int()`` fails), lone surrogates, NaN and Infinity, deep nesting, huge numbers
and strings, wrong types and shapes, bytes that are not JSON at all. Whatever it is, the
answer is a 4xx with a message, never a 5xx, and the database does not change (sheet
version, scores, audit events).

The JSON endpoints are the rater's autosave and submit (``scoring/views/workspace.py``);
admins and researchers have none (``test_every_json_endpoint_is_covered`` keeps this
list honest when one is added).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from scoring.forms import BATCH_ID
from scoring.models import Assignment, DimensionScore, ItemScore, ScoreSheet, SheetEvent
from studies.models import Response
from studies.rubric import load_rubric
from tests.factories import code_for
from tests.product import app_files

ROOT = Path(__file__).resolve().parents[2]
# The live sheet's endpoints and the training sheet's (training/views/rater.py) read their
# bodies through these two functions, which the fuzzing above drives.
# sheet_save reads the body itself (its one-statement path for an opened sheet) and
# falls back to sheet_save_for: the save URL fuzzed below reaches both; sheet_active_time
# (live) and the training page's time view read through sheet_active_time_for.
JSON_VIEWS = {
    "scoring/views/workspace.py": {
        "sheet_save",
        "sheet_save_for",
        "sheet_submit_for",
        "sheet_active_time_for",
    }
}

# A quick run by default; FUZZ_EXAMPLES=2000 for a long one.
FUZZ = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "60")),
    deadline=None,
    # the demo is built once per test; every example leaves it unchanged, which is
    # exactly what is asserted, so sharing it between examples is the point
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# --- values --------------------------------------------------------------------
# Characters for which isdigit() or isnumeric() is true but that are not ASCII digits.
UNICODE_DIGITS = st.sampled_from(
    ["²", "⑦", "³", "¹⁰", "٣", "３", "۵", "५", "𝟗", "Ⅻ", "五", "½", "⁷", "⓾", "൯", "-²", "+⑦", " ٣ "]
)
SURROGATE = st.integers(0xD800, 0xDFFF).map(chr)
SURROGATE_TEXT = st.tuples(st.text(max_size=8), SURROGATE, st.text(max_size=8)).map("".join)
HUGE_TEXT = st.builds(
    lambda ch, n: ch * n, st.sampled_from(["x", "é", "字", "\x00", "7"]), st.integers(4001, 60_000)
)
HUGE_INT = st.integers(min_value=2**63 - 2, max_value=10**400) | st.integers(
    min_value=-(10**400), max_value=-(2**63) + 2
)
NON_FINITE = st.sampled_from([float("nan"), float("inf"), float("-inf")])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | HUGE_INT
    | st.floats()
    | st.text(max_size=12)
    | UNICODE_DIGITS
    | SURROGATE_TEXT
)
ANY_JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6) | SURROGATE_TEXT, inner, max_size=4)
    ),
    max_leaves=10,
)
CONTAINERS = st.lists(SCALARS, max_size=3) | st.dictionaries(st.text(max_size=4), SCALARS, max_size=3)

# Never a whole number in 0..10, the range of every typed score.
BAD_SCORE = (
    UNICODE_DIGITS
    | SURROGATE_TEXT
    | NON_FINITE
    | HUGE_INT
    | st.integers(min_value=11)
    | st.integers(max_value=-1)
    | st.integers(min_value=11).map(str)
    | st.floats(min_value=0.01, max_value=9.99).filter(lambda f: not f.is_integer())
    | st.text(alphabet="abcxyz.,_ eE", min_size=1, max_size=8).filter(lambda s: s.strip())
    | st.booleans()
    | CONTAINERS
    | HUGE_TEXT
)
# Never storable as text: a lone surrogate, too long, a container, a boolean, not finite.
BAD_TEXT = SURROGATE_TEXT | HUGE_TEXT | CONTAINERS | st.booleans() | NON_FINITE
BAD_PATH = (
    UNICODE_DIGITS.map(lambda d: f"items.{d}.1.comment")
    | UNICODE_DIGITS.map(lambda d: f"comments.{d}")
    | UNICODE_DIGITS.map(lambda d: f"dims.s2.{d}")
    | SURROGATE_TEXT
    | SURROGATE_TEXT.map(lambda s: f"comments.1{s}")
    | HUGE_TEXT
    | st.text(max_size=30).filter(lambda s: "." not in s)
    | st.sampled_from(
        ["items.1.1.classification.x", "dims.s1.fluency", "items.9.1.comment", "comments.7", "texts."]
    )
)
SCORE_PATHS = [
    "dims.s2.focus",
    "dims.s2.purpose",
    "dims.s6.development",
    "dims.s5.correctly_used",
    "items.4.2.relevance",
]
TEXT_PATHS = ["comments.1", "comments.6", "items.1.2.comment", "items.4.1.comment", "texts.kvp"]


@st.composite
def bad_change(draw):
    kind = draw(st.sampled_from(["score", "text", "classification", "path", "shape", "not_yes"]))
    if kind == "score":
        return [draw(st.sampled_from(SCORE_PATHS)), draw(BAD_SCORE)]
    if kind == "text":
        return [draw(st.sampled_from(TEXT_PATHS)), draw(BAD_TEXT)]
    if kind == "classification":
        return ["items.1.3.classification", draw(UNICODE_DIGITS | SURROGATE_TEXT | CONTAINERS | HUGE_TEXT)]
    if kind == "not_yes":  # item 1.5 is not a Yes item: no score is accepted at all
        return ["items.1.5.elaboration", draw(st.integers(0, 2) | BAD_SCORE)]
    if kind == "path":
        return [draw(BAD_PATH), draw(SCALARS)]
    return draw(  # not a [path, value] pair
        st.lists(SCALARS, max_size=1)
        | st.lists(SCALARS, min_size=3, max_size=4)
        | SCALARS
        | st.dictionaries(st.text(max_size=4), SCALARS, max_size=2)
        | st.tuples(st.integers() | st.none() | CONTAINERS, SCALARS).map(list)
    )


def good_changes():
    category = load_rubric().category_keys[0]
    return st.lists(
        st.sampled_from(
            [
                ["dims.s2.purpose", 3],
                ["comments.1", "fine"],
                ["items.1.1.classification", category],
                ["texts.kvp", 7],
            ]
        ),
        max_size=3,
    )


BAD_BATCH_ID = (
    st.text(max_size=80).filter(lambda s: not BATCH_ID.match(s))
    | SURROGATE_TEXT
    | UNICODE_DIGITS
    | HUGE_TEXT
    | CONTAINERS
    | st.none()
    | st.booleans()
    | NON_FINITE
)
# Never the sheet's version (0): 409, or refused as a version at all.
BAD_VERSION = (
    st.integers(max_value=-1)
    | st.integers(min_value=1)
    | HUGE_INT
    | UNICODE_DIGITS
    | NON_FINITE
    | st.floats(min_value=0.01, max_value=1e6).filter(lambda f: not f.is_integer())
    | st.text(alphabet="abc-x ", max_size=6)
    | st.booleans()
    | CONTAINERS
)


@st.composite
def save_bodies(draw):
    """A save request with at least one thing wrong in it."""
    wrong = draw(st.sets(st.sampled_from(["batch", "version", "changes", "shape", "keys"]), min_size=1))
    body = {
        "batch_id": draw(BAD_BATCH_ID) if "batch" in wrong else draw(st.sampled_from(["b1", "x-9_Z", "7"])),
        "expected_version": draw(BAD_VERSION) if "version" in wrong else 0,
    }
    changes = draw(good_changes())
    if "changes" in wrong or not wrong - {"keys"}:
        changes = changes + draw(st.lists(bad_change(), min_size=1, max_size=3))
        changes = draw(st.permutations(changes))
    body["changes"] = changes
    if "shape" in wrong:
        body["changes"] = draw(
            SCALARS
            | st.dictionaries(st.text(max_size=5), SCALARS, max_size=3)
            | st.just([])
            | st.just(json.dumps(changes or [["comments.1", "x"]]))  # a string holding JSON is not a list
            | st.just([["comments.1", "x"]] * 501)
        )
    if "keys" in wrong:
        for key in draw(st.sets(st.sampled_from(sorted(body)), min_size=1)):
            del body[key]
        body.update(draw(st.dictionaries(st.text(max_size=6), SCALARS, max_size=2)))
    return body


def _deep(open_: str, n: int, inner: str = "") -> bytes:
    return (open_ * n + inner).encode()


RAW_BODIES = [
    b"",
    b"[" * 100_000,
    b"{" * 100_000,
    b'{"a":' * 50_000,
    b'{"batch_id": "b1", "expected_version": 0, "changes": ' + b"[" * 100_000,
    b'{"batch_id": "b1", "expected_version": 0, "changes": [["comments.1", '
    + b"[" * 900
    + b"]" * 900
    + b"]]}",
    b'{"batch_id": '
    + b"[" * 900
    + b"]" * 900
    + b', "expected_version": 0, "changes": [["comments.1", "x"]]}',
    b'{"batch_id": "b1", "expected_version": 0, "changes": [["comments.1", "\\ud800"]]}',
    b'{"batch_id": "b1", "expected_version": 0, "changes": [["comments.1", NaN]]}',
    b'{"batch_id": "b1", "expected_version": 0, "changes": [["dims.s2.focus", Infinity]]}',
    b'{"batch_id": "b1", "expected_version": 0, "changes": [["dims.s2.focus", "\xc2\xb2"]]}',
    b'{"batch_id": "b1", "expected_version": 0, "changes": [["dims.s2.focus", "\xe2\x91\xa6"]]}',
    b'{"batch_id": "b1", "expected_version": ' + b"9" * 5000 + b', "changes": [["comments.1", "x"]]}',
    b'{"batch_id": "b1", "expected_version": 1e999, "changes": [["comments.1", "x"]]}',
    b'{"batch_id": "b1", "expected_version": 0, "changes": [["comments.1", "\xff\xfe"]]}',
    b'{"batch_id": "b1", "expected_version": 0, "changes": [["comments.1", "x"]], "batch_id": [1]}',
    b"\xef\xbb\xbf{}",
    b"\xff\xfe{\x00}\x00",
    b"null",
    b"NaN",
    b'"\\ud800"',
    b"1" * 5000,
]


# --- the endpoints ---------------------------------------------------------------
@pytest.fixture
def rater_sheet(demo, client):
    """rater1 logged in with the demo's A05_FS10 sheet opened (version 0, empty)."""
    response = Response.objects.get(research_id="A05_FS10")
    client.login(username="rater1", password="demo-pass-2026")
    assert client.get(f"/scoring/{code_for('rater1', response)}/").status_code == 200
    return code_for("rater1", response)


def snapshot():
    """Every row the scoring endpoints could write."""
    return {
        model.__name__: list(model.objects.order_by("pk").values())
        for model in (ScoreSheet, ItemScore, DimensionScore, SheetEvent, Assignment)
    }


def check_refused(reply, before):
    assert 400 <= reply.status_code < 500, (reply.status_code, reply.content[:300])
    if reply["Content-Type"].startswith("application/json"):
        message = reply.json().get("message")
    else:
        message = reply.content.decode()
    assert isinstance(message, str) and message.strip(), reply.content[:300]
    assert snapshot() == before


def post_raw(client, url: str, raw: bytes):
    return client.post(url, data=raw, content_type="application/json")


def dump(body) -> bytes:
    # ensure_ascii escapes lone surrogates as \udXXX; allow_nan writes NaN/Infinity
    return json.dumps(body, allow_nan=True).encode()


@pytest.mark.django_db
def test_save_refuses_arbitrary_bad_json_with_4xx_and_changes_nothing(client, rater_sheet):
    url = f"/scoring/{rater_sheet}/save/"
    before = snapshot()
    assert before["ScoreSheet"][0]["version"] == 0

    @FUZZ
    @given(body=save_bodies())
    @example(body={"batch_id": "b1", "expected_version": 0, "changes": [["dims.s2.focus", "²"]]})
    @example(body={"batch_id": "b1", "expected_version": 0, "changes": [["dims.s2.focus", "⑦"]]})
    @example(body={"batch_id": "b1", "expected_version": 0, "changes": [["comments.1", "\ud800"]]})
    @example(body={"batch_id": "b1", "expected_version": 0, "changes": [["dims.s2.focus", float("nan")]]})
    @example(body={"batch_id": "b1", "expected_version": 2**70, "changes": [["comments.1", "x"]]})
    def run(body):
        check_refused(post_raw(client, url, dump(body)), before)

    run()


@pytest.mark.django_db
def test_save_and_submit_refuse_any_json_value_and_raw_bytes(client, rater_sheet):
    before = snapshot()
    urls = [
        f"/scoring/{rater_sheet}/save/",
        f"/scoring/{rater_sheet}/submit/",
        f"/scoring/{rater_sheet}/time/",
    ]

    @FUZZ
    @given(
        url=st.sampled_from(urls),
        raw=ANY_JSON.map(dump)
        | st.binary(max_size=64)
        | st.sampled_from(RAW_BODIES)
        | st.builds(lambda n: _deep("[", n), st.integers(500, 200_000)),
    )
    def run(url, raw):
        check_refused(post_raw(client, url, raw), before)

    for url in urls:
        for raw in RAW_BODIES:
            check_refused(post_raw(client, url, raw), before)
    run()


@pytest.mark.django_db
def test_submit_refuses_any_expected_version_of_an_incomplete_sheet(client, rater_sheet):
    url = f"/scoring/{rater_sheet}/submit/"
    before = snapshot()

    @FUZZ
    @given(
        body=st.fixed_dictionaries(
            {"expected_version": SCALARS | BAD_VERSION | st.just(0)}, optional={"x": ANY_JSON}
        )
    )
    def run(body):
        check_refused(post_raw(client, url, dump(body)), before)

    run()


@pytest.mark.django_db
def test_the_active_time_report_refuses_bad_values_and_other_sheets(client, rater_sheet):
    url = f"/scoring/{rater_sheet}/time/"
    sheet = ScoreSheet.objects.get(assignment__blind_code=rater_sheet, assignment__rater__username="rater1")
    before = snapshot()

    # either the sheet is wrong (another id, not an id) or the seconds are (never 1..900)
    wrong_sheet = (
        st.integers(min_value=sheet.pk + 1) | st.integers(max_value=sheet.pk - 1) | st.text(max_size=6)
    )
    wrong_seconds = (
        st.integers(max_value=0)
        | st.integers(min_value=901)
        | HUGE_INT
        | UNICODE_DIGITS
        | NON_FINITE
        | st.text(alphabet="abc-x ", max_size=6)
        | CONTAINERS
    )

    @FUZZ
    @given(
        body=st.fixed_dictionaries({"sheet": wrong_sheet, "seconds": SCALARS}, optional={"x": ANY_JSON})
        | st.fixed_dictionaries(
            {"sheet": st.just(sheet.pk), "seconds": wrong_seconds}, optional={"x": ANY_JSON}
        )
    )
    @example(body={"sheet": sheet.pk + 1000, "seconds": 30})  # another sheet: refused
    @example(body={"sheet": sheet.pk, "seconds": "²"})
    @example(body={"sheet": sheet.pk, "seconds": float("nan")})
    def run(body):
        check_refused(post_raw(client, url, dump(body)), before)

    run()


def test_every_json_endpoint_is_covered():
    """A view that reads a request body as JSON must be listed in JSON_VIEWS (and fuzzed above)."""
    found: dict[str, set[str]] = {}
    for path in app_files():
        text = path.read_text()
        if "request.body" in text or "json_body(" in text or "json.loads(request" in text:
            rel = str(path.relative_to(ROOT))
            views = set(re.findall(r"^def ([a-z]\w*)\(request", text, flags=re.M))
            # a view reads the body itself or through a private helper of its module that does
            helpers = [
                h
                for h in re.findall(r"^def (_\w+)\(", text, flags=re.M)
                if re.search(r"json_body\(request|request\.body", _source_of(text, h))
            ]
            reads = "|".join(
                [r"json_body\(request", r"request\.body", *(rf"\b{h}\(request" for h in helpers)]
            )
            readers = {v for v in views if re.search(reads, _source_of(text, v))}
            if readers:
                found[rel] = readers
    assert found == JSON_VIEWS


def _source_of(text: str, name: str) -> str:
    start = text.index(f"def {name}(")
    end = text.find("\ndef ", start + 1)
    return text[start : end if end != -1 else len(text)]

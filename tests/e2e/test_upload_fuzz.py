"""Uploads cannot 500 (issue 22, finding 7): every upload page (scenarios, responses,
scores, workbooks as admin and as rater, invitations) answers a hostile file with a 4xx
and a message, and changes nothing. Explicit examples of each attack, then a hypothesis
fuzz of mutated and random files. Django's test client re-raises any exception a view
lets through, so a 500 fails the test with its traceback."""

from __future__ import annotations

import json

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from studies.models import Study
from tests import hostile_files
from tests.factories import UserFactory, rater
from tests.product import APPS as PRODUCT_APPS

pytestmark = pytest.mark.django_db

APPS = (*PRODUCT_APPS, "auth")
# (page, form fields besides the file, the file names to try, who posts)
PAGES = {
    "scenarios": ("/manage/studies/{study}/scenarios/import/", {}, ("x.json", "x.jsonl", "x.xlsx"), "admin"),
    "responses": ("/manage/studies/{study}/responses/import/", {}, ("x.json", "x.jsonl"), "admin"),
    "scores": ("/manage/studies/{study}/scores/import/", {"raters": ""}, ("x.json",), "admin"),
    "workbooks": ("/manage/workbooks/", {}, ("x.xlsx",), "admin"),
    "rater_workbooks": ("/scoring/workbooks/", {}, ("x.xlsx",), "rater"),
    "invitations": ("/manage/studies/{study}/invite/", {}, ("x.csv",), "admin"),
}


def row_counts() -> dict[str, int]:
    return {
        model._meta.label: model._default_manager.count()
        for label in APPS
        for model in apps.get_app_config(label).get_models()
    }


@pytest.fixture
def world():
    study = Study.objects.create(name="Fuzzed study")
    admin = Client()
    admin.force_login(UserFactory(username="fuzz-admin", role="Admin"))
    rater_client = Client()
    rater_client.force_login(rater("fuzz-rater", "H91"))
    return {"study": study, "admin": admin, "rater": rater_client}


def post(world, page: str, name: str, content: bytes):
    url, fields, _names, who = PAGES[page]
    upload = SimpleUploadedFile(name, content, "application/octet-stream")
    return world[who].post(url.format(study=world["study"].pk), {"file": upload, **fields})


def assert_refused(world, page: str, name: str, content: bytes) -> None:
    before = row_counts()
    reply = post(world, page, name, content)
    assert 400 <= reply.status_code < 500, (page, name, reply.status_code)
    html = reply.content.decode()
    assert 'role="alert"' in html or 'class="error"' in html or "errorlist" in html, (page, name)
    assert row_counts() == before, (page, name)


CASES = [
    (page, name, payload)
    for page, (_url, _fields, names, _who) in PAGES.items()
    for name in names
    for payload in hostile_files.HOSTILE
]


@pytest.mark.parametrize(("page", "name", "payload"), CASES, ids=["-".join(c) for c in CASES])
def test_a_hostile_file_is_refused_with_a_message(world, page, name, payload):
    assert_refused(world, page, name, hostile_files.HOSTILE[payload]())


# --- the fuzz ---------------------------------------------------------------------------
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=25,
)


@st.composite
def mutated(draw, base: bytes) -> bytes:
    """``base`` with a few hostile fragments or random bytes inserted, bytes changed, or cut."""
    data = bytearray(base)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["insert", "insert", "replace", "cut"]))
        pos = draw(st.integers(0, len(data)))
        if op == "insert":
            data[pos:pos] = draw(st.sampled_from(hostile_files.FRAGMENTS) | st.binary(max_size=16))
        elif op == "replace" and data:
            data[min(pos, len(data) - 1)] = draw(st.integers(0, 255))
        else:
            del data[pos:]
    return bytes(data)


def files_for(page: str):
    bases = {
        "scenarios": [hostile_files.SCENARIOS_JSON, hostile_files.SCENARIOS_JSONL],
        "responses": [hostile_files.RESPONSES_JSONL, hostile_files.DATA_A],
        "scores": [hostile_files.DATA_A],
        "workbooks": [],
        "rater_workbooks": [],
        "invitations": [hostile_files.INVITES_CSV],
    }[page]
    options = [
        st.binary(max_size=512),
        json_values.map(lambda v: json.dumps(v).encode()),
        *[mutated(base) for base in bases],
    ]
    if page in ("scenarios", "workbooks", "rater_workbooks"):
        options.append(mutated(hostile_files.plain_xlsx()))
        options.append(mutated(hostile_files.plain_sheet_xml()).map(hostile_files.xlsx_with_sheet))
    return st.one_of(options)


@pytest.mark.parametrize("page", list(PAGES))
def test_fuzzed_uploads_are_refused_with_a_message_or_stored_never_a_500(world, page):
    names = PAGES[page][2]

    @settings(
        max_examples=25,
        deadline=None,
        derandomize=True,
        suppress_health_check=[
            HealthCheck.function_scoped_fixture,
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
        ],
    )
    @given(name=st.sampled_from(names), content=files_for(page))
    def upload(name, content):
        before = row_counts()
        reply = post(world, page, name, content)  # a 500 raises here
        assert reply.status_code < 500
        if reply.status_code >= 400:
            html = reply.content.decode()
            assert 'role="alert"' in html or 'class="error"' in html or "errorlist" in html
            assert row_counts() == before

    upload()

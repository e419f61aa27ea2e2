"""Ids and filters read from query strings and form fields never answer 5xx (property-based).

``?study=²`` passed ``isdigit()`` and then failed in ``int()``; ``study=abc`` posted to the
export endpoint raised ValueError in the ORM. Any value is a 4xx or a page, never a 5xx.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from research.models import ExportJob
from studies.models import Study
from studies.params import id_param

FUZZ = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
VALUES = (
    st.sampled_from(
        ["²", "⑦", "٣", "３", "-1", "0", "1.5", "99999999999999999999999", "1e9", " 1", "\x00", ""]
    )
    | st.text(max_size=12)
    | st.integers().map(str)
)
# (user, url, query parameters the view reads)
PAGES = [
    ("admin", "/manage/workbooks/", ["study"]),
    ("admin", "/manage/assignments/", ["study"]),
    ("admin", "/manage/workload/", ["study"]),
    ("admin", "/manage/generation/", ["scenario", "condition"]),
    ("researcher", "/research/", ["study", "conditions", "models", "a", "b", "step"]),
    ("researcher", "/research/figures/overall.svg", ["study", "conditions", "step"]),
    ("researcher", "/research/agreement/", ["study"]),
    ("rater1", "/scoring/", ["study"]),
    ("calibrator", "/calibration/", ["study"]),
]


@pytest.mark.django_db
def test_query_parameters_never_answer_5xx(demo, client):
    clients = {}
    for user, *_ in PAGES:
        if user not in clients:
            c = client.__class__()
            c.login(username=user, password="demo-pass-2026")
            clients[user] = c

    @FUZZ
    @given(page=st.sampled_from(PAGES), data=st.data())
    @example(page=PAGES[0], data=None)
    def run(page, data):
        user, url, names = page
        query = {name: data.draw(VALUES) for name in names} if data else {"study": "²"}
        reply = clients[user].get(url, query)
        assert reply.status_code < 500, (url, query)

    run()


@pytest.mark.django_db
def test_export_start_refuses_any_study_without_5xx(demo, client):
    client.login(username="admin", password="demo-pass-2026")
    studies = set(Study.objects.values_list("pk", flat=True))

    @FUZZ
    @given(study=VALUES, kind=st.sampled_from(["results", "workbooks"]) | st.text(max_size=6))
    @example(study="abc", kind="results")
    @example(study="²", kind="results")
    def run(study, kind):
        assume(id_param(study) not in studies)  # an existing study starts a real export
        reply = client.post("/research/exports/", {"study": study, "kind": kind})
        assert 400 <= reply.status_code < 500
        assert not ExportJob.objects.exists()

    run()


HUGE = "9" * 30  # beyond 2**63: OverflowError in SQLite's driver, out of range in PostgreSQL
BAD_IDS = [HUGE, str(2**63), "-1", "²", "1.5", "abc"]


def _posts(study_id: int) -> list[tuple[str, str, dict]]:
    """(user, url, form) posts that pick objects by id: issue 36, finding 7 found 500s on the
    generation, assignment and catalogue forms."""
    return [
        ("admin", "/manage/generation/", {"study": "{id}", "scenarios": ["{id}"], "endpoints": ["{id}"],
                                          "conditions": ["{id}"]}),
        ("admin", "/manage/generation/", {"study": str(study_id), "scenarios": ["{id}"], "endpoints": ["{id}"],
                                          "conditions": ["{id}"]}),
        ("admin", "/manage/assignments/auto/", {"study": str(study_id), "conditions": ["{id}"]}),
        ("admin", "/manage/assignments/auto/", {"study": "{id}"}),
        ("admin", "/manage/assignments/", {"study": str(study_id), "scenario": "{id}", "conditions": ["{id}"],
                                           "rater_a": "{id}", "rater_b": "{id}"}),
        ("admin", f"/manage/studies/{study_id}/catalogue/", {"endpoints": ["{id}"], "conditions": ["{id}"]}),
        ("admin", "/manage/judges/", {"study": "{id}", "judge": "{id}"}),
        ("researcher", "/api/tokens/", {"name": "x", "scope": "read", "days": "3", "study": "{id}"}),
    ]  # fmt: skip


def _filled(form: dict, value: str) -> dict:
    return {k: [v.format(id=value) for v in vs] if isinstance(vs, list) else vs.format(id=value)
            for k, vs in form.items()}  # fmt: skip


@pytest.mark.django_db
@pytest.mark.parametrize("value", BAD_IDS)
def test_forms_that_pick_by_id_refuse_a_bad_id_without_5xx(demo, client, value):
    from django.test import Client

    from generation.models import GenerationBatch

    clients: dict[str, Client] = {}
    for user, url, form in _posts(demo.study.pk):
        if user not in clients:
            clients[user] = Client(raise_request_exception=False)
            clients[user].login(username=user, password="demo-pass-2026")
        reply = clients[user].post(url, _filled(form, value))
        assert reply.status_code < 500, (url, value, reply.status_code)
    assert not GenerationBatch.objects.exists()


@pytest.mark.django_db
def test_a_bad_id_is_an_invalid_choice_on_the_form(demo, client):
    client.login(username="admin", password="demo-pass-2026")
    page = client.post(
        f"/manage/studies/{demo.study.pk}/catalogue/", {"endpoints": [HUGE], "conditions": ["1"]}
    ).content.decode()
    assert f"“{HUGE}” is not a valid value." in page.replace("&ldquo;", "“").replace("&rdquo;", "”")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path, status",
    [
        ("/api/v1/studies/{study}/items?offset=9223372036854775807", 422),
        ("/api/v1/studies/{study}/items?offset=" + HUGE, 422),
        ("/api/v1/studies/{study}/items?limit=-1", 422),
        ("/api/v1/studies/{study}/items?limit=" + HUGE, 422),
        ("/api/v1/studies/" + HUGE + "/scenarios", 404),
        ("/api/v1/exports/" + HUGE, 404),
        ("/api/v1/generation/batches/" + HUGE, 404),
        ("/api/v1/studies/{study}/tables/table1?" + "&".join(f"q{n}=1" for n in range(1200)), 400),
    ],
)
def test_api_paths_bound_their_numbers(demo, settings, path, status):
    """Issue 36, finding 7: ``?offset=9223372036854775807`` answered 500 on production settings."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from api.services.tokens import token_create

    settings.DEBUG = False
    token = token_create(user=get_user_model().objects.get(username="admin"), name="t", scope="read", days=1)
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Bearer {token.plain}")
    reply = client.get(path.format(study=demo.study.pk))
    assert reply.status_code == status, reply.content[:200]
    assert reply["Content-Type"].startswith("application/json")


@pytest.mark.django_db
@pytest.mark.parametrize("field", ["study", "scenarios", "endpoints", "conditions"])
def test_api_batch_bodies_refuse_a_huge_id_with_the_forms_words(demo, field):
    import json

    from django.contrib.auth import get_user_model
    from django.test import Client

    from api.services.tokens import token_create

    token = token_create(user=get_user_model().objects.get(username="admin"), name="t", scope="write", days=1)
    client = Client(raise_request_exception=False, HTTP_AUTHORIZATION=f"Bearer {token.plain}")
    body = {"study": demo.study.pk, "scenarios": [1], "endpoints": [1], "conditions": [1]}
    body[field] = int(HUGE) if field == "study" else [int(HUGE)]
    reply = client.post("/api/v1/generation/batches", json.dumps(body), content_type="application/json")
    assert reply.status_code in (400, 404), reply.content[:300]

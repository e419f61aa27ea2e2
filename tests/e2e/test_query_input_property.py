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

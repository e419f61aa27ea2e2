"""Issue 40: the generation page's batches for a study of 600 to 6,000 runs: filtered by study,
model endpoint, condition, scenario and status, and paged, the pages keeping the filters; odd
input says so and filters nothing."""

from __future__ import annotations

import pytest

from generation import selectors as generation_selectors
from generation.models import BatchStatus, GenerationBatch, GenerationRun
from studies.models import Condition, ModelEndpoint, Scenario, Study
from tests.listing import assert_two_a_page, listed, newest_first

pytestmark = pytest.mark.django_db
URL = "/manage/generation/"
ROW = r'href="/manage/generation/batches/(\d+)/"'


@pytest.fixture
def batches(client, demo, monkeypatch):
    study = Study.objects.get(name="CGPST demo")
    other = Study.objects.create(name="Other study")
    fs10 = Scenario.objects.get(study=study, code="FS10")
    fs2 = Scenario.objects.create(study=other, code="FS2", theme="t", text="x")
    a, b = Condition.objects.get(letter="A"), Condition.objects.get(letter="B")
    m1, m2 = ModelEndpoint.objects.order_by("model_number")[:2]
    made = []
    for n, (st, scenario, endpoint, condition, status) in enumerate(
        [
            (study, fs10, m1, a, BatchStatus.FINISHED),
            (study, fs10, m2, b, BatchStatus.RUNNING),
            (other, fs2, m1, b, BatchStatus.FINISHED),
            (other, fs2, m2, a, BatchStatus.CANCELLED),
            (study, fs10, m1, b, BatchStatus.FINISHED),
        ]
    ):
        batch = GenerationBatch.objects.create(study=st, name=f"batch {n}", status=status)
        GenerationRun.objects.create(
            batch=batch, study=st, scenario=scenario, endpoint=endpoint, condition=condition
        )
        made.append(batch)
    monkeypatch.setattr(generation_selectors, "BATCHES_PER_PAGE", 2)
    assert client.login(username="admin", password="demo-pass-2026")
    return client, made, {"study": study, "other": other, "a": a, "b": b, "m1": m1, "m2": m2}


def test_the_batches_are_paged_newest_first(batches):
    client, made, _ = batches
    assert_two_a_page(client, URL, newest_first(made), table_id="batch-list", row=ROW, noun="batches")


def test_each_filter_narrows_to_exactly_its_batches(batches):
    client, made, o = batches
    cases = [
        ({"study": str(o["other"].pk)}, [b for b in made if b.study_id == o["other"].pk]),
        ({"status": "finished"}, [b for b in made if b.status == "finished"]),
        ({"condition": str(o["b"].pk)}, [b for b in made if b.runs.get().condition_id == o["b"].pk]),
        ({"endpoint": str(o["m1"].pk)}, [b for b in made if b.runs.get().endpoint_id == o["m1"].pk]),
        ({"scenario": "fs2"}, [b for b in made if b.runs.get().scenario.code == "FS2"]),
        (
            {"study": str(o["study"].pk), "endpoint": str(o["m1"].pk), "condition": str(o["b"].pk)},
            [made[4]],
        ),
    ]
    for query, expected in cases:
        assert listed(client, URL, query, table_id="batch-list", row=ROW) == newest_first(expected), query


@pytest.mark.parametrize(
    "query",
    [
        {"study": "99999999999999999999999999"},
        {"endpoint": "x"},
        {"status": "exploded"},
        {"page": "-1"},
        {"page": "zz"},
    ],
)
def test_odd_input_says_so_and_filters_nothing(batches, query):
    client, made, _ = batches
    before = GenerationBatch.objects.count()
    reply = client.get(URL, query)
    assert reply.status_code == 200
    body = reply.content.decode()
    if "page" not in query:
        assert 'class="error"' in body
    assert GenerationBatch.objects.count() == before


def test_raters_and_anonymous_visitors_do_not_reach_the_list(batches):
    client, *_ = batches
    client.logout()
    assert client.get(URL).status_code == 302
    assert client.login(username="rater1", password="demo-pass-2026")
    assert client.get(URL).status_code == 403

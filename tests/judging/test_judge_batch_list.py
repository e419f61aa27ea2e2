"""Issue 40: the judges page's batches, filtered by study, judge and status and paged, the
pages keeping the filters; odd input says so and filters nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from judging.models import Judge, JudgeBatch
from judging.selectors import batches as batch_selectors
from judging.services.judges import judge_create
from studies.models import ModelEndpoint, Study
from tests.listing import assert_two_a_page, listed, newest_first

pytestmark = pytest.mark.django_db
URL = "/manage/judges/"
ROW = r'href="/manage/judges/batches/(\d+)/"'


@pytest.fixture
def batches(client, demo, monkeypatch):
    study = Study.objects.get(name="CGPST demo")
    other = Study.objects.create(name="Other study")
    first = Judge.objects.first()
    second = judge_create(
        name="second judge", endpoint=ModelEndpoint.objects.get(name="stub"), provider_family="stub"
    )
    made = [
        JudgeBatch.objects.create(
            study=s, judge=j, status=status, prompt_version="v1", temperature=0.0, samples=1
        )
        for s, j, status in [
            (study, first, "finished"),
            (other, second, "running"),
            (study, second, "finished"),
            (other, first, "cancelled"),
            (study, first, "running"),
        ]
    ]
    monkeypatch.setattr(batch_selectors, "JUDGE_BATCHES_PER_PAGE", 2)
    client.force_login(get_user_model().objects.get(username="researcher"))
    return client, made, {"study": study, "other": other, "first": first, "second": second}


def test_the_judge_batches_are_paged_newest_first(batches):
    client, made, _ = batches
    assert_two_a_page(
        client, URL, newest_first(made), table_id="judge-batch-list", row=ROW, noun="judge batches"
    )


def test_each_filter_narrows_to_exactly_its_batches(batches):
    client, made, o = batches
    cases = [
        ({"study": str(o["other"].pk)}, [b for b in made if b.study_id == o["other"].pk]),
        ({"judge": str(o["second"].pk)}, [b for b in made if b.judge_id == o["second"].pk]),
        ({"status": "running"}, [b for b in made if b.status == "running"]),
        ({"study": str(o["study"].pk), "judge": str(o["first"].pk), "status": "finished"}, [made[0]]),
    ]
    for query, expected in cases:
        assert listed(client, URL, query, table_id="judge-batch-list", row=ROW) == newest_first(expected), (
            query
        )


@pytest.mark.parametrize(
    "query", [{"study": "1" * 30}, {"judge": "x"}, {"status": "exploded"}, {"page": "-3"}]
)
def test_odd_input_says_so_and_filters_nothing(batches, query):
    client, made, _ = batches
    reply = client.get(URL, query)
    assert reply.status_code == 200
    if "page" not in query:
        assert 'class="error"' in reply.content.decode()
    assert JudgeBatch.objects.count() == len(made)


def test_raters_do_not_reach_the_list(batches):
    client, *_ = batches
    client.logout()
    assert client.login(username="rater1", password="demo-pass-2026")
    assert client.get(URL).status_code == 403

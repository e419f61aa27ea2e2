"""Each response's diversity is computed once, by a worker, when it arrives (issue 14): the task
stores what ``text_diversity`` gives, recomputes only when the texts changed, every new response
gets the task in the outbox, and the results read the stored rows instead of computing."""

from __future__ import annotations

import random

import pytest
from celery import current_app
from django.db import connection
from django.test.utils import CaptureQueriesContext

import research.diversity as diversity_module
from core.models import TaskOutbox
from research.diversity import CLEANED, RELEASED, answers_stamp, text_diversity
from research.models import ResponseDiversity
from research.selectors.diversity import response_diversity_get
from research.selectors.research import results_get
from research.services.diversity import DIVERSITY_TASK, response_diversity_compute
from research.tasks import response_diversity_compute_task
from studies.models import Response
from tests.caches import cache_clear_own
from tests.factories import SAMPLE_ANSWERS, make_response
from tests.paper_table4 import load_table4

pytestmark = pytest.mark.django_db

CHINESE = "以下是挑战：\n1. 海洋塑料伤害浮游生物和鱼类。\n2. 渔业收入下降，社区失去工作。\n3. 游客减少，旅游经济受损。"


def _english(data_a, step: str) -> str:
    """A05_FS10's real answer to a step, one item per line."""
    return "\n".join(item["Content"] for item in data_a[0][3][step] if "Content" in item)


@pytest.fixture
def calls(monkeypatch):
    """Every call of ``text_diversity`` (the selector and the service both reach it through
    ``research.diversity``)."""
    seen: list[str] = []
    real = diversity_module.text_diversity

    def counting(text):
        seen.append(text)
        return real(text)

    monkeypatch.setattr(diversity_module, "text_diversity", counting)
    return seen


@pytest.fixture
def response(data_a):
    answers = list(SAMPLE_ANSWERS)
    answers[0], answers[2] = _english(data_a, "Step-1"), CHINESE
    return make_response(answers=answers)


def test_the_task_stores_what_text_diversity_gives(response):
    response_diversity_compute_task(response.pk)  # the task's body, run here

    row = ResponseDiversity.objects.get(response=response)
    step1, step3 = text_diversity(response.step1), text_diversity(response.step3)
    assert row.values == {"1": step1, "3": step3}  # JSON round trip keeps every float exactly
    assert all(isinstance(value, float) for value in (*step1.values(), *step3.values()))
    assert step1[RELEASED] != step1[CLEANED]  # real English text: the variants differ
    assert row.stamp == answers_stamp([response.step1, response.step3])
    assert row.computed_at.tzinfo is not None


def test_a_second_compute_does_nothing_and_changed_texts_recompute(response, calls):
    assert response_diversity_compute(response_id=response.pk) is True
    assert len(calls) == 2  # Step 1 and Step 3
    first = ResponseDiversity.objects.get(response=response)

    assert response_diversity_compute(response_id=response.pk) is False
    assert len(calls) == 2
    assert ResponseDiversity.objects.get(response=response).computed_at == first.computed_at

    # Step 2 and the other steps do not enter diversity: nothing to recompute
    Response.objects.filter(pk=response.pk).update(step2="another Step 2")
    assert response_diversity_compute(response_id=response.pk) is False and len(calls) == 2

    Response.objects.filter(pk=response.pk).update(step3="1. one item\n2. one item")
    assert response_diversity_compute(response_id=response.pk) is True and len(calls) == 4
    row = ResponseDiversity.objects.get(response=response)
    assert row.values["3"] == text_diversity("1. one item\n2. one item") != first.values["3"]
    assert row.values["1"] == first.values["1"]
    assert row.stamp != first.stamp and row.computed_at > first.computed_at


def test_a_row_with_a_stale_stamp_is_recomputed_and_a_deleted_response_ignored(response, calls):
    response_diversity_compute(response_id=response.pk)
    ResponseDiversity.objects.filter(response=response).update(stamp="made from other texts", values={})
    assert response_diversity_compute(response_id=response.pk) is True and len(calls) == 4
    assert ResponseDiversity.objects.get(response=response).values["1"] == text_diversity(response.step1)

    assert response_diversity_compute(response_id=response.pk + 1000) is False
    assert ResponseDiversity.objects.count() == 1


def test_a_created_response_records_its_diversity_task_in_the_outbox(response):
    tasks = TaskOutbox.objects.filter(task_name=DIVERSITY_TASK)
    assert list(tasks.values_list("args", flat=True)) == [[response.pk]]
    assert tasks.get().sent_at is None  # sent after the commit (this test never commits)
    assert DIVERSITY_TASK in current_app.tasks  # the name a worker runs
    assert not ResponseDiversity.objects.exists()  # computed by the worker, not the request


def test_stored_rows_are_read_in_one_query_without_computing(response, calls):
    other = make_response(study=response.study, research_id="B01_FS1")
    for pk in (response.pk, other.pk):
        response_diversity_compute(response_id=pk)
    cache_clear_own()
    calls.clear()

    with CaptureQueriesContext(connection) as queries:
        values = response_diversity_get(response_ids=[response.pk, other.pk])
    assert calls == [] and len(queries) == 1
    assert values[response.pk] == {1: text_diversity(response.step1), 3: text_diversity(response.step3)}
    assert values[other.pk] == {1: text_diversity(other.step1), 3: text_diversity(other.step3)}


def test_missing_and_stale_rows_are_computed_then_cached_and_never_stored_by_the_read(response, calls):
    stale = make_response(study=response.study, research_id="B01_FS1")
    current = make_response(study=response.study, research_id="C01_FS1")
    for pk in (stale.pk, current.pk):
        response_diversity_compute(response_id=pk)
    Response.objects.filter(pk=stale.pk).update(step1=CHINESE)  # edited after it was stored
    cache_clear_own()
    calls.clear()

    ids = [response.pk, stale.pk, current.pk]
    values = response_diversity_get(response_ids=ids)
    assert sorted(calls) == sorted([response.step1, response.step3, CHINESE, stale.step3])
    assert values[response.pk][1] == text_diversity(response.step1)
    assert values[stale.pk][1] == text_diversity(CHINESE)  # the current text, not the stored row
    assert values[current.pk][1] == text_diversity(current.step1)
    assert ResponseDiversity.objects.get(response=stale).values["1"] == text_diversity(SAMPLE_ANSWERS[0])
    assert not ResponseDiversity.objects.filter(response=response).exists()  # a read writes no row

    calls.clear()
    assert response_diversity_get(response_ids=ids) == values and calls == []  # now from the cache


def test_the_results_are_the_same_whether_diversity_is_stored_or_computed(calls):
    study = load_table4()
    # give each response its own Step-1 and Step-3 text, so a mix-up of rows would show
    rnd = random.Random(14)
    words = ["plankton", "ocean", "fishery", "tourism", "policy", "data", "school", "lab", "海洋", "塑料"]

    def answer() -> str:
        return "\n".join(f"{n}. {' '.join(rnd.choices(words, k=rnd.randint(3, 9)))}" for n in range(1, 5))

    for pk in Response.objects.filter(study=study).values_list("pk", flat=True):
        Response.objects.filter(pk=pk).update(step1=answer(), step3=answer())
    cache_clear_own()
    computed = results_get(study=study)
    assert not ResponseDiversity.objects.exists()

    for pk in Response.objects.filter(study=study).values_list("pk", flat=True):
        response_diversity_compute(response_id=pk)
    cache_clear_own()
    calls.clear()
    stored = results_get(study=study)
    assert calls == []  # read from the rows

    assert stored.response_diversity == computed.response_diversity
    assert stored.diversity == computed.diversity
    assert len({repr(v) for v in computed.response_diversity.values()}) == len(
        computed.response_diversity
    )  # all differ
    assert any(mean.value is not None for mean in computed.diversity)

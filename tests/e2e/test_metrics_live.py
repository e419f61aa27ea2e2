"""The metrics endpoint shows the LLM and sheet counters moving during real work: a
generation run made by a real Celery worker against the stub over HTTP (riding out
429s), and a rater's save and submit, whose agreement recompute the worker runs."""

import pytest
from django.contrib.auth import get_user_model

from calibration.selectors.metrics import agreement_recomputes_total
from generation.models import RunStatus
from generation.services.batches import batch_create
from generation.tasks import run_advance_send
from scoring.models import Assignment, ScoringGroup
from studies.models import Condition, Response, Scenario, Study
from studies.services.review import response_release
from tests.factories import reference_changes, sheet_submitted, stub_endpoint
from tests.metrics_scrape import TOKEN, scrape, value
from tests.workers import wait_for

pytestmark = pytest.mark.worker


def test_llm_and_sheet_counters_move_between_two_scrapes(client, settings, celery_worker, demo, llm_stub):
    settings.METRICS_TOKEN = TOKEN
    before = scrape(client)
    llm = {"kind": "generation", "endpoint": "stub"}
    users = get_user_model().objects
    study, scenario = Study.objects.get(name="CGPST demo"), Scenario.objects.get(code="FS10")
    ScoringGroup.objects.create(  # the pair that scores FS10 under condition B
        study=study,
        scenario=scenario,
        condition=Condition.objects.get(letter="B"),
        rater_a=users.get(username="rater1"),
        rater_b=users.get(username="rater2"),
    )

    # a single-agent run (6 calls), each call answered only at its third attempt (two 429s)
    llm_stub.configure(fail_first=2, faults=["429"], retry_after=0.05)
    run = batch_create(
        study=study,
        scenarios=[scenario],
        endpoints=[stub_endpoint(llm_stub)],
        conditions=[Condition.objects.get(letter="B")],
        enqueue=run_advance_send,
    ).runs[0]

    def finished():
        run.refresh_from_db()
        return run.status not in (RunStatus.QUEUED, RunStatus.RUNNING)

    wait_for(finished, worker=celery_worker)
    assert run.status == RunStatus.SUCCEEDED, run.error

    # an admin releases the generated response (the review gate): it is routed to a rater pair
    response_release(response_id=run.response_id, actor=users.get(username="admin"))
    routed = Assignment.objects.filter(response=run.response, role="primary").count()

    # a rater saves and submits a sheet; the worker recomputes agreement after the commit
    recomputes = agreement_recomputes_total()
    sheet_submitted(
        users.get(username="rater1"), Response.objects.get(research_id="A05_FS10"), reference_changes(3)
    )
    wait_for(lambda: agreement_recomputes_total() > recomputes, worker=celery_worker)

    after = scrape(client)

    def moved(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("teamllm_llm_calls_total", **llm) == 6
    assert moved("teamllm_llm_retries_total", **llm) == 12
    assert moved("teamllm_llm_rate_limited_total", **llm) == 12
    assert moved("teamllm_llm_wait_seconds_total", **llm) >= 12 * 0.05
    prompt = moved("teamllm_llm_tokens_total", **llm, type="prompt")
    completion = moved("teamllm_llm_tokens_total", **llm, type="completion")
    assert prompt == run.prompt_tokens > 0 and completion == run.completion_tokens > 0
    assert moved("teamllm_llm_call_seconds_total", **llm) > 0
    assert moved("teamllm_engine_worker_seconds_total", **llm) > 0
    assert moved("teamllm_engine_job_duration_seconds_count", kind="generation", status="succeeded") == 1
    assert moved("teamllm_engine_jobs", kind="generation", status="succeeded") == 1
    assert moved("teamllm_assignments_total", role="primary") == routed == 2
    # one save (a change event) and one submit of a human sheet
    assert moved("teamllm_sheet_events_total", kind="change") == 1
    assert moved("teamllm_sheet_events_total", kind="submit") == 1
    assert moved("teamllm_sheets", status="submitted") == 1
    assert moved("teamllm_agreement_recomputes_total") >= 1
    # the run finished normally: no job counts as stuck
    assert value(after, "teamllm_engine_jobs_stuck", kind="generation", reason="stale") == 0

"""A judge task run in-process against the stub over HTTP: calls, re-ask, failure, samples."""

import pytest

from judging.models import JudgeBatchStatus, JudgeCall, JudgeTaskStatus
from judging.services.runs import judge_batch_launch, judge_task_run
from scoring.models import Assignment, AssignmentRole, ScoreSheet, SheetSource


def _run_all(batch):
    return [judge_task_run(task_id=t.pk) for t in batch.tasks.all()]


def test_a_batch_stores_one_submitted_judge_sheet_per_response(study, judge, llm_stub):
    batch = judge_batch_launch(study=study, judge=judge)
    assert _run_all(batch) == ["succeeded"] * batch.tasks.count()
    batch.refresh_from_db()
    assert batch.status == JudgeBatchStatus.FINISHED
    task = batch.tasks.get()
    sheet = ScoreSheet.all_objects.get(pk=task.sheet_id)
    assert sheet.is_submitted and sheet.source == SheetSource.JUDGE
    assert sheet.assignment.role == AssignmentRole.JUDGE and sheet.assignment.rater == judge.user
    assert not ScoreSheet.objects.filter(pk=sheet.pk).exists()  # humans' manager never sees it
    assert not Assignment.objects.filter(rater=judge.user).exists()
    call = JudgeCall.objects.get(task=task)
    assert call.attempt == 1 and call.parsed and call.request_params["prompt_version"] == "cgpst-judge-v1"
    assert call.request_params["temperature"] == 0.0 and call.request_params["structured_output"]
    body = llm_stub.stats.last_body
    assert body["response_format"]["type"] == "json_schema"
    assert 0 < sheet.overall <= 186


@pytest.mark.parametrize("fault", ["prose", "truncated", "category", "range", "extra", "missing"])
def test_an_invalid_answer_is_asked_again_once_then_stored(study, judge, llm_stub, fault):
    llm_stub.configure(judge_fault=fault, judge_fault_attempts=1)
    batch = judge_batch_launch(study=study, judge=judge)
    assert _run_all(batch) == ["succeeded"]
    first, second = JudgeCall.objects.filter(task__batch=batch).order_by("attempt")
    assert first.parsed is None and first.errors and second.parsed
    assert "could not be stored" in second.messages[-1]["content"]
    assert first.errors[0] in second.messages[-1]["content"]


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        ("prose", "one JSON object"),
        ("truncated", "not valid JSON (it looks cut off)"),
        ("category", "Unknown category"),
        ("range", "must be a whole number"),
        ("extra", "items.1.9.classification: not an entry of this sheet"),
        ("missing", "missing entry"),
    ],
)
def test_an_answer_invalid_twice_fails_the_task_with_raw_output_kept(study, judge, llm_stub, fault, expected):
    llm_stub.configure(judge_fault=fault, judge_fault_attempts=2)
    batch = judge_batch_launch(study=study, judge=judge)
    assert _run_all(batch) == ["failed"]
    task = batch.tasks.get()
    assert task.status == JudgeTaskStatus.FAILED and expected in task.error and task.sheet is None
    calls = list(task.calls.order_by("attempt"))
    assert [c.attempt for c in calls] == [1, 2] and all(c.raw_output for c in calls)
    assert not Assignment.all_objects.filter(rater=judge.user).exists()  # nothing half-written
    assert judge_task_run(task_id=task.pk) == "inactive"  # a redelivered message does nothing
    assert task.calls.count() == 2


def test_k_samples_make_k_calls_and_a_rerun_repeats_none(study, judge, llm_stub):
    batch = judge_batch_launch(study=study, judge=judge, samples=3)
    assert _run_all(batch) == ["succeeded"]
    assert JudgeCall.objects.filter(task__batch=batch).count() == 3
    assert llm_stub.stats.requests == 3
    assert judge_task_run(task_id=batch.tasks.get().pk) == "inactive"
    assert llm_stub.stats.requests == 3


def test_a_rate_limited_endpoint_ends_valid(study, judge, llm_stub, settings):
    settings.LLM_BACKOFF_BASE_SECONDS = 0.01
    llm_stub.configure(fail_first=2, faults=["429"], retry_after=0.05)
    batch = judge_batch_launch(study=study, judge=judge)
    assert _run_all(batch) == ["succeeded"]
    assert llm_stub.stats.faults["429"] == 2


def test_a_timing_out_endpoint_fails_with_its_reason(study, judge, llm_stub, settings):
    settings.LLM_MAX_ATTEMPTS = 2
    settings.LLM_BACKOFF_BASE_SECONDS = 0.01
    judge.endpoint.timeout_seconds = 1
    judge.endpoint.save()
    llm_stub.configure(fail_rate=1.0, faults=["timeout"], timeout_seconds=1.5)
    batch = judge_batch_launch(study=study, judge=judge)
    assert _run_all(batch) == ["failed"]
    task = batch.tasks.get()
    assert "failed after 2 attempts" in task.error and not task.calls.exists()


def test_a_second_batch_replaces_the_judges_sheet_and_archives_the_first(study, judge, llm_stub):
    first = judge_batch_launch(study=study, judge=judge)
    _run_all(first)
    second = judge_batch_launch(study=study, judge=judge)
    _run_all(second)
    assignments = Assignment.all_objects.filter(rater=judge.user)
    assert assignments.count() == 2
    assert assignments.filter(archived_at__isnull=True).get().sheet.pk == second.tasks.get().sheet_id


def test_a_batch_queues_its_tasks_as_the_engine_s_one_task(study, judge, llm_stub):
    """Judging has no task of its own: its jobs run on generation's engine task."""
    from core.models import TaskOutbox

    batch = judge_batch_launch(study=study, judge=judge)
    task = batch.tasks.get()
    rows = TaskOutbox.objects.filter(sent_at__isnull=True).values_list("task_name", "args")
    assert ("generation.tasks.run_advance", [task.pk, 0, "judge"]) in list(rows)
    assert not TaskOutbox.objects.filter(task_name="judging.task_run").exists()
    assert task.dispatched_at is not None and task.calls_total == 1  # the start deadline runs


def test_a_batch_leaves_responses_held_for_review_out(study, judge, llm_stub):
    """The review gate: a judge's sheet is an assignment too; a held response gets none."""
    from tests.factories import generated_response

    held = generated_response(study=study, model_number="71")  # generated responses need release
    assert held.held
    batch = judge_batch_launch(study=study, judge=judge)
    assert [t.response.research_id for t in batch.tasks.all()] == ["A05_FS10"]

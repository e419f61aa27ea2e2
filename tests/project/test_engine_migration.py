"""Judge tasks and generation runs moved onto one LLM batch engine: a database made before
migrates forward with every row kept, the judge tasks' counters filled from their stored
calls, the active time of ended jobs from their wall time, and judge tasks still owed in
the outbox sent as the engine's one task."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from tests.factories import (
    ConditionFactory,
    ModelEndpointFactory,
    ScenarioFactory,
    StudyFactory,
    make_response,
)
from tests.project.test_migrate_forward import leave_fully_migrated, migrate_to_latest

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("judging", "0001_initial"), ("generation", "0005_member_profiles_per_study")]


def _old_rows():
    """Rows of every table the migration touches, as the previous release stored them."""
    from generation.models import GenerationRun
    from judging.models import JudgeBatch, JudgeCall, JudgeTask
    from judging.services.judges import judge_create

    study = StudyFactory()
    scenario = ScenarioFactory(study=study)
    endpoint = ModelEndpointFactory(base_url="http://127.0.0.1:9/v1", model_name="m")
    response = make_response(study=study, scenario=scenario, model=endpoint, condition=ConditionFactory())
    judge = judge_create(name="old judge", endpoint=endpoint)
    start = timezone.now() - timedelta(hours=1)
    batch = JudgeBatch.objects.create(study=study, judge=judge, prompt_version="v1", temperature=0, samples=2)
    task = JudgeTask.objects.create(
        batch=batch,
        response=response,
        status="succeeded",
        started_at=start,
        finished_at=start + timedelta(seconds=40),
    )
    for sample, attempt, tokens in ((1, 1, 100), (1, 2, 120), (2, 1, 90)):
        JudgeCall.objects.create(
            task=task, sample=sample, attempt=attempt, messages=[], raw_output="{}", prompt_tokens=tokens,
            completion_tokens=10, latency_ms=500,
        )  # fmt: skip
    run = GenerationRun.objects.create(
        study=study, scenario=scenario, endpoint=endpoint, condition=response.condition, status="succeeded",
        started_at=start, finished_at=start + timedelta(seconds=75),
    )  # fmt: skip
    return task, run


def test_judge_tasks_and_runs_migrate_onto_the_engine_with_every_row_kept():
    try:
        task, run = _old_rows()
        MigrationExecutor(connection).migrate(BEFORE)
        old = MigrationExecutor(connection).loader.project_state(BEFORE).apps
        from core.models import TaskOutbox  # its table is the same before and after

        TaskOutbox.objects.all().delete()
        TaskOutbox.objects.create(task_name="judging.task_run", args=[task.pk])
        TaskOutbox.objects.create(task_name="judging.task_run", args=[99], sent_at=timezone.now())
        TaskOutbox.objects.create(task_name="generation.tasks.run_advance", args=[run.pk, 3])
        counts = {
            name: old.get_model(*name.split(".")).objects.count()
            for name in ("judging.JudgeCall", "judging.JudgeTask")
        }

        migrate_to_latest()

        from generation.models import GenerationRun
        from judging.models import JudgeCall, JudgeTask

        assert JudgeCall.objects.count() == counts["judging.JudgeCall"] == 3
        assert JudgeTask.objects.count() == counts["judging.JudgeTask"] == 1
        task = JudgeTask.objects.get(pk=task.pk)
        assert (task.calls_done, task.calls_total, task.prompt_tokens, task.completion_tokens) == (
            3,
            3,
            310,
            30,
        )
        assert task.active_seconds == 40 and task.status == "succeeded"
        assert GenerationRun.objects.get(pk=run.pk).active_seconds == 75
        rows = list(TaskOutbox.objects.order_by("pk").values_list("task_name", "args"))
        assert rows == [
            ("generation.tasks.run_advance", [task.pk, None, "judge"]),  # owed: the engine's task now
            ("judging.task_run", [99]),  # sent long ago: left as it was
            ("generation.tasks.run_advance", [run.pk, 3]),
        ]
    finally:
        leave_fully_migrated()

"""The outbox moved from ``studies`` to ``core``: tasks still owed when a deployment migrates are
sent afterwards, not dropped with the old table."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.project.test_migrate_forward import leave_fully_migrated, migrate_to_latest

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE_MOVE = ("studies", "0006_endpoint_key_env_prefix")


def test_pending_outbox_rows_move_to_core():
    try:
        executor = MigrationExecutor(connection)
        executor.migrate([BEFORE_MOVE])
        old = MigrationExecutor(connection).loader.project_state([BEFORE_MOVE]).apps
        OldOutbox = old.get_model("studies", "TaskOutbox")
        OldOutbox.objects.create(task_name="calibration.recompute_response", args=[7], attempts=2)
        OldOutbox.objects.create(
            task_name="research.build_export", args=[3], countdown=1.5, last_error="down"
        )
        migrate_to_latest()

        from core.models import TaskOutbox

        # (a worker's sweep may already be sending them: only what it never changes is compared)
        rows = list(TaskOutbox.objects.order_by("pk").values_list("task_name", "args", "countdown"))
        assert rows == [("calibration.recompute_response", [7], None), ("research.build_export", [3], 1.5)]
    finally:
        leave_fully_migrated()

"""Responses stored before the review gate count as released: current studies keep
working after the upgrade (studies 0011's data migration)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.factories import make_response
from tests.project.test_migrate_forward import leave_fully_migrated, migrate_to_latest

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("studies", "0010_endpoint_pacing")]


def test_existing_responses_are_released_when_they_arrived():
    try:
        response = make_response()
        MigrationExecutor(connection).migrate(BEFORE)
        migrate_to_latest()

        from studies.models import Response, Study

        after = Response.objects.get(pk=response.pk)
        assert after.held is False and after.hold_reasons == []
        assert after.released_at == after.created_at and after.released_by is None
        assert Study.objects.get(pk=response.study_id).responses_need_release is True
    finally:
        leave_fully_migrated()

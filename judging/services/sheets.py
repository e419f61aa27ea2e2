"""Storing a judge's sheet: an assignment of role ``judge`` held by the judge's user and
a submitted sheet of source ``judge``, written by the same services as every sheet."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from judging.models import Judge
from scoring.models import Assignment, AssignmentRole, ScoreSheet, SheetSource
from scoring.services.sheets import sheet_fill_and_submit
from studies.models import Response


def judge_sheet_store(*, judge: Judge, response: Response, values: dict[str, Any], note: str) -> ScoreSheet:
    """Store ``values`` (entry path -> value) as the judge's submitted sheet on the response.

    All or nothing (one transaction). A judge has one active sheet per response: an
    earlier judge assignment on the same response is archived (kept, with its sheet),
    so a second batch replaces the judge's scores without losing the first."""
    with transaction.atomic():
        earlier = Assignment.all_objects.select_for_update().filter(
            rater=judge.user, response=response, archived_at__isnull=True
        )
        earlier.update(
            archived_at=timezone.now(), archived_reason=f"Replaced by a later judge sheet ({note})"
        )
        assignment = Assignment.all_objects.create(
            rater=judge.user, response=response, role=AssignmentRole.JUDGE
        )
        return sheet_fill_and_submit(
            assignment=assignment,
            actor=None,
            changes=list(values.items()),
            source=SheetSource.JUDGE,
            note=note,
        )

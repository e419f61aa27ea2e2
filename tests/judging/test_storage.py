"""Storing a judge sheet is all or nothing, and a judge keeps one active sheet per response."""

import pytest

from judging.selectors.batches import judge_sheets
from judging.services.sheets import judge_sheet_store
from scoring.models import Assignment, ScoreSheet, SheetEvent
from scoring.services.sheets import InvalidEntries
from studies.models import Response
from tests.factories import SHEET_TEXTS, reference_changes


def _values(**overrides):
    return {**dict([*reference_changes(3), *SHEET_TEXTS]), **overrides}


def test_a_refused_value_leaves_nothing_written_and_the_earlier_sheet_active(judge):
    response = Response.objects.get(research_id="A05_FS10")
    first = judge_sheet_store(judge=judge, response=response, values=_values(), note="first")
    events = SheetEvent.objects.count()
    with pytest.raises(InvalidEntries, match="dims.s2.focus"):
        judge_sheet_store(judge=judge, response=response, values=_values(**{"dims.s2.focus": 42}), note="bad")
    assert list(Assignment.all_objects.filter(rater=judge.user).values_list("pk", "archived_at")) == [
        (first.assignment_id, None)
    ]
    assert ScoreSheet.all_objects.filter(assignment__rater=judge.user).count() == 1
    assert SheetEvent.objects.count() == events
    assert list(judge_sheets(study_id=response.study_id)) == [first]


def test_a_new_sheet_archives_the_earlier_one_with_its_sheet_kept(judge):
    response = Response.objects.get(research_id="A05_FS10")
    first = judge_sheet_store(judge=judge, response=response, values=_values(), note="first")
    second = judge_sheet_store(
        judge=judge, response=response, values=_values(**{"dims.s2.focus": 1}), note="second"
    )
    first.assignment.refresh_from_db()
    assert first.assignment.archived_at is not None and "Replaced" in first.assignment.archived_reason
    assert ScoreSheet.all_objects.filter(pk=first.pk).exists()
    assert list(judge_sheets(judge=judge)) == [second]
    assert second.overall != first.overall

"""Migration scoring 0010: existing assignments get their own distinct blind codes (never the
response's), and every existing sheet stays reachable by its rater under the new code."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from scoring.models import Assignment, ScoreSheet
from scoring.selectors import rater_assignment_get
from scoring.services.sheets import sheet_open
from studies.models import Response

BEFORE, AFTER = [("scoring", "0009_training_models_to_training")], [("scoring", "0010_assignment_blind_code")]


@pytest.mark.django_db(transaction=True)
def test_existing_assignments_get_distinct_codes_and_keep_their_sheets(demo):
    for assignment in Assignment.all_objects.filter(archived_at__isnull=True).select_related("rater"):
        sheet_open(assignment=assignment, actor=assignment.rater)
    sheets = dict(ScoreSheet.all_objects.values_list("pk", "assignment_id"))
    assert len(sheets) >= 2  # the demo pair, at least
    try:
        MigrationExecutor(connection).migrate(BEFORE)
        old = (
            MigrationExecutor(connection).loader.project_state(BEFORE).apps.get_model("scoring", "Assignment")
        )
        assert "blind_code" not in {f.name for f in old._meta.get_fields()}
        MigrationExecutor(connection).migrate(AFTER)
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    codes = list(Assignment.all_objects.values_list("blind_code", flat=True))
    response_codes = set(Response.objects.values_list("blind_code", flat=True))
    assert all(len(c) == 10 for c in codes) and len(set(codes)) == len(codes)
    assert not set(codes) & response_codes  # an old link (the response's code) opens nothing
    assert dict(ScoreSheet.all_objects.values_list("pk", "assignment_id")) == sheets
    for assignment in Assignment.objects.filter(archived_at__isnull=True).exclude(role="training"):
        found = rater_assignment_get(user=assignment.rater, blind_code=assignment.blind_code)
        assert found.pk == assignment.pk and found.sheet.pk in sheets
    a05 = Response.objects.get(research_id="A05_FS10")
    assert (
        len({a.blind_code for a in Assignment.objects.filter(response=a05)})
        == Assignment.objects.filter(response=a05).count()
        >= 2
    )

"""scoring 0015: a sheet's copy of its item rows, kept as lists in the columns' order, becomes
rows by column name (issue 41: no draft tied to a dict's key order); a draft so migrated reads
back the same entries, and the reverse gives the lists back."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("scoring", "0014_scoresheet_level")]
AFTER = [("scoring", "0015_entry_rows_named")]
ROW = [1, 3, "Education", "", 2, 1, None, None, "clear"]


def _migrate(nodes):
    executor = MigrationExecutor(connection)
    executor.migrate(nodes)
    return MigrationExecutor(connection).loader.project_state(nodes).apps


def test_the_rows_of_a_draft_get_their_names_and_read_back_the_same():
    from scoring.models import ScoreSheet
    from scoring.selectors import sheet_entries_get
    from tests.factories import assign, make_response, rater

    assignment = assign(rater("migrated-rows"), make_response())
    try:
        old = _migrate(BEFORE)
        Sheet = old.get_model("scoring", "ScoreSheet")
        sheet = Sheet.objects.create(
            assignment_id=assignment.pk,
            rubric_version="cgpst-v1",
            entry_rows={"items": [ROW, [4, 2, "", "", None, None, 1, 3, ""]], "dims": {"s2.focus": 7}},
        )
        untouched = Sheet.objects.filter(pk=sheet.pk).values_list("entry_rows", flat=True).get()
        assert untouched["items"][0] == ROW

        _migrate(AFTER)
        # the columns later migrations add are not there yet: read without them
        stored = ScoreSheet.all_objects.defer("other_texts").get(pk=sheet.pk)
        assert stored.entry_rows["items"][0] == {
            "step": 1, "position": 3, "category": "Education", "invalid_type": "", "elaboration": 2,
            "originality": 1, "correctly_written": None, "relevance": None, "comment": "clear",
        }  # fmt: skip
        assert stored.entry_rows["dims"] == {"s2.focus": 7}
        entries = sheet_entries_get(sheet=stored)
        idea = entries.ideas[1][2]
        assert (idea.category, idea.elaboration, idea.originality) == (
            "Education",
            2,
            1,
        ) and idea.comment == "clear"
        assert (entries.criteria[1].correctly_written, entries.criteria[1].relevance) == (1, 3)
        assert entries.dimensions["s2.focus"] == 7

        back = _migrate(BEFORE).get_model("scoring", "ScoreSheet")
        assert back.objects.get(pk=sheet.pk).entry_rows["items"][0] == ROW
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

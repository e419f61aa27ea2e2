"""The one totals function, fed the real A05_FS10 scores of H01 and H02."""

import pytest

from scoring.models import SheetEvent
from scoring.score_files import data_a_changes, file_summaries
from scoring.selectors import sheet_entries_get
from scoring.services.sheets import sheet_apply_changes, sheet_open
from studies.rubric import SheetEntries, load_rubric, normalized_vector, sheet_totals
from tests.factories import assign, rater

EXPECTED = {
    "H01": ({1: 24, 2: 22, 3: 30, 4: 11, 5: 4, 6: 25}, 116),
    "H02": ({1: 28, 2: 22, 3: 32, 4: 13, 5: 4, 6: 18}, 117),
}


def _entries_from(scores):
    """Apply the data_A changes to empty entries without a database."""
    from scoring.entries import entries_from_changes

    rubric = load_rubric()
    return entries_from_changes(data_a_changes(scores, rubric), rubric)


@pytest.mark.parametrize("index,code", [(3, "H01"), (4, "H02")])
def test_sheet_totals_reproduces_the_study_sheet(data_a, index, code):
    rubric = load_rubric()
    totals = sheet_totals(_entries_from(data_a[0][index]), rubric)
    steps, overall = EXPECTED[code]
    assert totals.steps == steps
    assert totals.overall == overall
    stated = file_summaries(data_a[0][index])
    for key, value in stated.items():
        if "." in key:
            assert totals.dimensions[key] == value, key


def test_sheet_totals_flexibility_counts_distinct_yes_categories(data_a):
    totals = sheet_totals(_entries_from(data_a[0][3]), load_rubric())
    assert (
        totals.dimensions["s3.flexibility"] == 2
    )  # Technology and Government & Politics; item 4 is a Duplicate
    assert totals.dimensions["s3.fluency"] == 7


def test_sheet_totals_of_empty_sheet_lists_everything_missing():
    rubric = load_rubric()
    totals = sheet_totals(SheetEntries.empty(rubric), rubric)
    assert totals.overall == 0
    paths = {m.path for m in totals.missing}
    assert "items.1.1.classification" in paths
    assert "dims.s2.focus" in paths
    assert "texts.kvp" in paths
    assert not totals.complete


def test_normalized_vector_has_23_values_in_0_1(data_a):
    rubric = load_rubric()
    vector = normalized_vector(sheet_totals(_entries_from(data_a[0][3]), rubric), rubric)
    assert len(vector) == 23
    assert all(0 <= v <= 1 for v in vector)
    assert vector[0] == 1.0  # Fluency 8/8


@pytest.mark.django_db
@pytest.mark.parametrize("index,code", [(3, "H01"), (4, "H02")])
def test_entering_study_scores_through_the_service_gives_study_totals(demo, data_a, index, code):
    from studies.models import Response

    response = Response.objects.get(research_id="A05_FS10")
    user = rater(f"r-{code}")
    sheet = sheet_open(assignment=assign(user, response), actor=user)
    result = sheet_apply_changes(
        sheet_id=sheet.pk,
        actor=user,
        changes=data_a_changes(data_a[0][index], load_rubric()),
        expected_version=0,
    )
    steps, overall = EXPECTED[code]
    assert result.totals.steps == steps
    assert result.totals.overall == overall
    sheet.refresh_from_db()
    assert sheet.overall == overall
    assert sheet.version == 1
    # the stored rows give the same totals when read back
    assert sheet_totals(sheet_entries_get(sheet=sheet), load_rubric()).overall == overall
    (event,) = SheetEvent.objects.filter(sheet=sheet, kind="change")  # one audit event for the save
    assert len(event.changes) > 40

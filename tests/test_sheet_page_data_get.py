"""The scoring page reads the sheet's entries and the response's items in one query: the same
values as the ORM selectors sheet_entries_get and response_items_by_step."""

import pytest
from django.contrib.auth import get_user_model

from scoring.models import Assignment, Response
from scoring.rubric import load_rubric
from scoring.score_files import data_a_changes
from scoring.selectors import response_items_by_step, sheet_entries_get, sheet_page_data_get
from scoring.services.sheets import sheet_apply_changes, sheet_open

pytestmark = pytest.mark.django_db


def test_equals_the_orm_selectors_for_a_scored_sheet(demo, data_a):
    rubric = load_rubric()
    rater = get_user_model().objects.get(username="rater1")
    response = Response.objects.get(research_id="A05_FS10")
    sheet = sheet_open(assignment=Assignment.objects.get(rater=rater, response=response), actor=rater)
    changes = data_a_changes(data_a[0][3], rubric) + [
        ("items.1.2.comment", '<b>"hi"</b> & more'),
        ("items.4.3.comment", "criterion note"),
        ("texts.stem", "How might we"),
        ("comments.6", "step note"),
    ]
    sheet_apply_changes(sheet_id=sheet.pk, actor=rater, changes=changes, expected_version=sheet.version)
    sheet.refresh_from_db()

    entries, items = sheet_page_data_get(sheet=sheet, response_id=response.pk, rubric=rubric)

    assert entries == sheet_entries_get(sheet=sheet, rubric=rubric)
    assert items == response_items_by_step(response=response)
    assert entries.ideas[1][1].comment == '<b>"hi"</b> & more' and entries.comments[6] == "step note"
    assert entries.dimensions["s2.focus"] is not None and len(items[1]) >= 5 and len(items[4]) == 5


def test_equals_the_orm_selectors_for_a_fresh_sheet(demo):
    rubric = load_rubric()
    rater = get_user_model().objects.get(username="rater2")
    response = Response.objects.get(research_id="A05_FS10")
    sheet = sheet_open(assignment=Assignment.objects.get(rater=rater, response=response), actor=rater)
    entries, items = sheet_page_data_get(sheet=sheet, response_id=response.pk, rubric=rubric)
    assert entries == sheet_entries_get(sheet=sheet, rubric=rubric)
    assert items == response_items_by_step(response=response)

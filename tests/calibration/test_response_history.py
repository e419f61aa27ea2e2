"""A response's history lists its sheets' events but their autosaves; an event without a
note names the entries it changed, the first few of them."""

import pytest

from calibration.selectors.responses import response_history
from scoring.models import EventKind
from scoring.services.sheets import sheet_apply_changes, sheet_open
from tests.factories import assign, make_response, rater

pytestmark = pytest.mark.django_db


def test_the_history_names_the_changed_entries_of_an_event_without_a_note():
    user = rater("history-rater")
    response = make_response()
    sheet = sheet_open(assignment=assign(user, response), actor=user)
    sheet_apply_changes(
        sheet_id=sheet.pk, actor=user, changes=[("dims.s2.focus", 2)], expected_version=0
    )  # an autosave: not in the history
    paths = ["dims.s2.focus", "dims.s2.purpose", "comments.1", "comments.3", "texts.stem"]
    values = [3, 2, "one", "three", "stem"]
    sheet_apply_changes(
        sheet_id=sheet.pk, actor=user, changes=list(zip(paths, values, strict=True)),
        expected_version=1, event_kind=EventKind.IMPORT,
    )  # fmt: skip
    sheet_apply_changes(
        sheet_id=sheet.pk, actor=user, changes=[("comments.1", "two")], expected_version=2,
        event_kind=EventKind.IMPORT, note="from data_A.json",
    )  # fmt: skip
    details = [(e["what"], e["detail"]) for e in response_history(response=response)]
    assert ("Imported", "dims.s2.focus, dims.s2.purpose, comments.1 (+2)") in details
    assert ("Imported", "from data_A.json") in details
    assert [what for what, _detail in details].count("Changed") == 0
    assert ("Created", "") in details

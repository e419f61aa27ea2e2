"""scoring 0010: the per-field change events of one save become one event listing its
changes, in the order they were written; other saves, other kinds and other sheets stay
apart, and a submit keeps its value as its one change."""

import datetime as dt

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("scoring", "0010_assignment_blind_code")]
AFTER = [("scoring", "0011_sheet_event_changes")]
T0 = dt.datetime(2026, 11, 20, 9, 30, tzinfo=dt.UTC)


def _migrate(nodes):
    executor = MigrationExecutor(connection)
    executor.migrate(nodes)
    return MigrationExecutor(connection).loader.project_state(nodes).apps


def test_the_change_events_of_a_save_become_one_event():
    from tests.factories import assign, make_response, rater

    user = rater("migrated-events")
    sheets = [assign(user, make_response()).pk for _ in range(2)]
    try:
        old = _migrate(BEFORE)
        Sheet, Event = old.get_model("scoring", "ScoreSheet"), old.get_model("scoring", "SheetEvent")
        a, b = (Sheet.objects.create(assignment_id=pk, rubric_version="v1") for pk in sheets)

        def event(sheet, kind, path="", old_value=None, new_value=None, version=1, at=T0, note=""):
            made = Event.objects.create(
                sheet=sheet, actor_id=user.pk, kind=kind, path=path, old_value=old_value,
                new_value=new_value, version=version, note=note,
            )  # fmt: skip
            Event.objects.filter(pk=made.pk).update(at=at)  # auto_now_add on create

        event(a, "create", version=0)
        for n in range(3):  # one save of three fields
            event(a, "change", f"dims.s2.d{n}", None, n)
        event(a, "change", "texts.stem", "", "新的", version=2, at=T0 + dt.timedelta(seconds=5))
        event(b, "change", "dims.s2.d0", None, 4)  # the same moment on another sheet
        event(a, "submit", new_value=17, version=3)
        event(a, "correct", "dims.s2.d1", 1, 2, version=4, note="typo")
        event(a, "correct", "dims.s2.d2", 2, 3, version=4, note="typo")

        new = _migrate(AFTER)
        Event = new.get_model("scoring", "SheetEvent")
        rows = list(
            Event.objects.order_by("sheet_id", "id").values_list("sheet_id", "kind", "version", "changes")
        )
        assert rows == [
            (a.pk, "create", 0, []),
            (a.pk, "change", 1, [{"path": f"dims.s2.d{n}", "old": None, "new": n} for n in range(3)]),
            (a.pk, "change", 2, [{"path": "texts.stem", "old": "", "new": "新的"}]),
            (a.pk, "submit", 3, [{"path": "", "old": None, "new": 17}]),
            (a.pk, "correct", 4, [
                {"path": "dims.s2.d1", "old": 1, "new": 2}, {"path": "dims.s2.d2", "old": 2, "new": 3},
            ]),
            (b.pk, "change", 1, [{"path": "dims.s2.d0", "old": None, "new": 4}]),
        ]  # fmt: skip
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

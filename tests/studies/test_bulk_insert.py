"""``studies.bulk.rows_insert``: the one-statement insert a whole-sheet save writes its audit
events and rows with (issue 14). On PostgreSQL it sends the rows as one JSON document; the
rows it stores must be exactly the rows ``bulk_create`` stores, for every kind of value."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from scoring.models import DimensionScore, ItemScore, SheetEvent
from scoring.services.sheets import sheet_open
from studies.bulk import rows_insert, rows_insert_orm
from tests.factories import assign, make_response, rater

pytestmark = pytest.mark.django_db

# values a rater's text or a score can hold, and JSON values an event records
AWKWARD_TEXTS = [
    "",
    "plain",
    'it\'s "quoted" \\ back\\slash',
    "新的想法：在 2050 年，城市会更绿色。",
    "emoji 🧪 and tab\tnew\nline",
    "'); DROP TABLE scoring_sheetevent; --",
    "%s %(name)s {0} $1",
    "x" * 4000,
]
JSON_VALUES = [None, 0, 3, -1, 2.5, True, False, "", "text", "null", [1, "a", None], {"k": [1, {"n": None}]}]


@pytest.fixture
def sheet():
    return sheet_open(assignment=assign(rater("bulk-r1"), make_response()))


def _events(sheet_id: int) -> list[tuple]:
    return list(
        SheetEvent.objects.filter(sheet_id=sheet_id)
        .order_by("id")
        .values_list("actor_id", "kind", "path", "old_value", "new_value", "version", "note")
    )


def _event_rows() -> list[dict]:
    values = [*JSON_VALUES, *AWKWARD_TEXTS]
    return [
        {"path": f"items.1.{n}.comment"[:80], "old_value": old, "new_value": new}
        for n, (old, new) in enumerate(zip(values, reversed(values), strict=True))
    ]


def test_events_are_stored_as_bulk_create_stores_them(sheet):
    assert connection.vendor == "postgresql"  # the JSON path is the one under test
    user = sheet.assignment.rater
    same = {
        "actor_id": user.pk,
        "at": timezone.now(),
        "kind": "change",
        "version": 7,
        "note": AWKWARD_TEXTS[2],
    }
    rows = _event_rows()
    other = sheet_open(assignment=assign(rater("bulk-r2"), make_response()))
    rows_insert(SheetEvent, rows, same={"sheet_id": sheet.pk, **same})
    rows_insert_orm(SheetEvent, rows, same={"sheet_id": other.pk, **same})
    stored, reference = _events(sheet.pk)[1:], _events(other.pk)[1:]  # [0]: the open's own event
    assert len(stored) == len(rows)
    assert stored == reference
    # JSON null and None are both SQL NULL, as Django stores None in a JSONField
    assert SheetEvent.objects.filter(sheet=sheet, old_value__isnull=True).count() == (
        SheetEvent.objects.filter(sheet=other, old_value__isnull=True).count()
    )
    times = set(SheetEvent.objects.filter(sheet=sheet, kind="change").values_list("at", flat=True))
    assert times == {same["at"]}


def test_a_whole_batch_is_one_statement(sheet, django_assert_num_queries):
    rows = [{"path": f"dims.s2.d{n}", "old_value": None, "new_value": n} for n in range(102)]
    same = {
        "sheet_id": sheet.pk,
        "actor_id": None,
        "at": timezone.now(),
        "kind": "change",
        "version": 1,
        "note": "",
    }
    with django_assert_num_queries(1):
        rows_insert(SheetEvent, rows, same=same)
    with django_assert_num_queries(0):
        rows_insert(SheetEvent, [], same=same)
    assert SheetEvent.objects.filter(sheet=sheet, kind="change").count() == 102


def test_an_upsert_overwrites_only_the_named_columns(sheet):
    before = {row.position: row for row in ItemScore.objects.filter(sheet=sheet, step=1)}
    assert before, "a first open creates the item rows"
    count = ItemScore.objects.filter(sheet=sheet).count()
    rows_insert(
        ItemScore,
        [
            {
                "step": 1,
                "position": 1,
                "category": "new",
                "invalid_type": "",
                "elaboration": 2,
                "originality": 1,
                "correctly_written": None,
                "relevance": None,
                "comment": AWKWARD_TEXTS[3],
            },
            {
                "step": 1,
                "position": 2,
                "category": "ignored",
                "invalid_type": "blank",
                "elaboration": None,
                "originality": None,
                "correctly_written": None,
                "relevance": None,
                "comment": "kept out",
            },
        ],  # fmt: skip
        same={"sheet_id": sheet.pk},
        conflict=["sheet", "step", "position"],
        update=["category", "elaboration", "originality", "comment"],
    )
    first = ItemScore.objects.get(sheet=sheet, step=1, position=1)
    second = ItemScore.objects.get(sheet=sheet, step=1, position=2)
    assert (first.pk, first.category, first.elaboration, first.originality, first.comment) == (
        before[1].pk, "new", 2, 1, AWKWARD_TEXTS[3],
    )  # fmt: skip
    assert (second.pk, second.category, second.comment) == (before[2].pk, "ignored", "kept out")
    assert second.invalid_type == before[2].invalid_type  # not among the updated columns
    assert ItemScore.objects.filter(sheet=sheet).count() == count  # updated, not added


def test_a_conflict_without_update_columns_keeps_the_row(sheet):
    row = DimensionScore.objects.filter(sheet=sheet).first()
    rows_insert(
        DimensionScore,
        [{"dimension": row.dimension, "value": 3}, {"dimension": "zz.new", "value": 1}],
        same={"sheet_id": sheet.pk},
        conflict=["sheet", "dimension"],
    )
    row.refresh_from_db()
    assert row.value is None
    assert DimensionScore.objects.get(sheet=sheet, dimension="zz.new").value == 1


def test_a_missing_column_is_refused_and_nothing_is_written(sheet):
    count = SheetEvent.objects.count()
    with pytest.raises(ValueError, match="no value for .*note"):
        rows_insert(
            SheetEvent,
            [{"path": "x", "old_value": None, "new_value": 1}],
            same={
                "sheet_id": sheet.pk,
                "actor_id": None,
                "at": timezone.now(),
                "kind": "change",
                "version": 1,
            },
        )
    assert SheetEvent.objects.count() == count


def test_shared_values_are_cast_to_their_columns(sheet):
    at = timezone.now() - timedelta(days=3, microseconds=17)
    rows_insert(
        SheetEvent,
        [{"path": "p", "old_value": {"a": 1}, "new_value": "2"}],
        same={
            "sheet_id": sheet.pk,
            "actor_id": None,
            "at": at,
            "kind": "submit",
            "version": 2**31 - 1,
            "note": "",
        },
    )
    event = SheetEvent.objects.get(sheet=sheet, kind="submit")
    assert (event.at, event.version, event.actor_id, event.old_value, event.new_value) == (
        at, 2**31 - 1, None, {"a": 1}, "2",
    )  # fmt: skip

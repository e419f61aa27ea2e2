"""``core.db.bulk.rows_insert``: the one-statement insert a whole-sheet save writes its audit
events and rows with (issue 14). On PostgreSQL it sends the rows as one JSON document; the
rows it stores must be exactly the rows ``bulk_create`` stores, for every kind of value."""

from datetime import timedelta

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.db.bulk import Writes, row_update, rows_insert, rows_insert_orm
from scoring.models import DimensionScore, ItemScore, ScoreSheet, SheetEvent
from scoring.services.sheets import sheet_open
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


@pytest.mark.postgres  # the JSON path is the one under test
def test_events_are_stored_as_bulk_create_stores_them(sheet):
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


def test_row_update_writes_the_named_fields_as_save_does_and_only_those(sheet):
    """``row_update`` (the sheet's UPDATE of every save) stores what ``save(update_fields=...)``
    stores, for text, JSON and date columns, leaves the other columns alone, and refuses to
    pretend when the row is gone."""
    later = timezone.now() + timedelta(minutes=5)
    by_hand, by_orm = ScoreSheet.objects.get(pk=sheet.pk), ScoreSheet.objects.get(pk=sheet.pk)
    for copy in (by_hand, by_orm):
        copy.stem, copy.comments, copy.totals = AWKWARD_TEXTS[2], {"1": AWKWARD_TEXTS[3]}, {"overall": 7}
        copy.updated_at, copy.version = later, 4
        copy.purpose = "not written: not among the fields"
    fields = ["comments", "stem", "totals", "updated_at", "version"]
    row_update(by_hand, fields)
    stored_by_hand = ScoreSheet.objects.values(*fields, "purpose").get(pk=sheet.pk)
    by_orm.save(update_fields=fields)  # save's auto_now rewrites updated_at; row_update does not
    stored_by_orm = ScoreSheet.objects.values(*fields, "purpose").get(pk=sheet.pk)
    assert {**stored_by_hand, "updated_at": None} == {**stored_by_orm, "updated_at": None}
    assert stored_by_hand["purpose"] == "" and stored_by_hand["updated_at"] == later
    ghost = ScoreSheet(pk=10**9, version=1)
    with pytest.raises(DatabaseError):
        row_update(ghost, ["version"])


def test_writes_sent_together_are_all_written_or_none(sheet):
    """``Writes``: several statements in one round trip on PostgreSQL; each is checked
    (rows expected), and a batch that fails writes nothing inside its transaction."""
    writes = Writes()
    rows_insert(DimensionScore, [{"dimension": "s2.focus", "value": 3}], same={"sheet_id": sheet.pk},
                conflict=["sheet", "dimension"], update=["value"], writes=writes)  # fmt: skip
    sheet.stem = "together"
    row_update(sheet, ["stem"], writes=writes)
    assert not DimensionScore.objects.filter(
        sheet=sheet, dimension="s2.focus", value=3
    ).exists()  # not yet sent
    with CaptureQueriesContext(connection) as captured:
        writes.send()
    # PostgreSQL: one round trip; elsewhere each in its turn (the ORM's bulk upsert, then the UPDATE)
    assert len(captured.captured_queries) == (1 if connection.vendor == "postgresql" else 2)
    assert DimensionScore.objects.get(sheet=sheet, dimension="s2.focus").value == 3
    assert ScoreSheet.objects.get(pk=sheet.pk).stem == "together"

    failing = Writes()
    rows_insert(DimensionScore, [{"dimension": "s2.focus", "value": 1}], same={"sheet_id": sheet.pk},
                conflict=["sheet", "dimension"], update=["value"], writes=failing)  # fmt: skip
    row_update(ScoreSheet(pk=10**9, stem="ghost"), ["stem"], writes=failing)
    with pytest.raises(DatabaseError, match="0 rows written, 1 expected"), transaction.atomic():
        failing.send()
    assert DimensionScore.objects.get(sheet=sheet, dimension="s2.focus").value == 3  # rolled back


def test_a_batch_with_a_failing_statement_in_the_middle_writes_nothing(sheet):
    """The statements before and after a failing one are not kept (the save's transaction,
    here a savepoint in the test's, rolls back all of them)."""
    DimensionScore.objects.update_or_create(sheet=sheet, dimension="s2.focus", defaults={"value": 3})
    event = SheetEvent.objects.create(sheet=sheet, kind="change", path="dims.s2.focus", version=1)
    writes = Writes()
    rows_insert(DimensionScore, [{"dimension": "s2.focus", "value": 1}], same={"sheet_id": sheet.pk},
                conflict=["sheet", "dimension"], update=["value"], writes=writes)  # fmt: skip
    writes.add(
        'INSERT INTO "scoring_sheetevent" SELECT * FROM "scoring_sheetevent" WHERE "id" = %s', [event.pk]
    )
    sheet.stem = "not kept"
    row_update(sheet, ["stem"], writes=writes)
    with pytest.raises(IntegrityError), transaction.atomic():
        writes.send()  # the copied event's id exists: the second statement fails
    assert DimensionScore.objects.get(sheet=sheet, dimension="s2.focus").value == 3
    assert ScoreSheet.objects.get(pk=sheet.pk).stem == ""

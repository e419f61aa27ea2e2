"""Tests that need PostgreSQL carry the ``postgres`` marker and are skipped with a reason on SQLite."""

from __future__ import annotations

import pytest
from django.conf import settings

from tests.conftest import pytest_collection_modifyitems


class _Item:
    def __init__(self, *markers: str) -> None:
        self.markers = list(markers)
        self.added: list[pytest.MarkDecorator] = []

    def get_closest_marker(self, name: str):
        return name if name in self.markers else None

    def add_marker(self, marker) -> None:
        self.added.append(marker)


@pytest.mark.parametrize(
    ("engine", "skipped"),
    [("django.db.backends.sqlite3", True), ("django.db.backends.postgresql", False)],
)
def test_postgres_tests_are_skipped_on_sqlite_only(monkeypatch, engine, skipped):
    monkeypatch.setitem(settings.DATABASES["default"], "ENGINE", engine)
    needs_pg, plain = _Item("postgres"), _Item("worker")
    pytest_collection_modifyitems(None, [needs_pg, plain])
    assert plain.added == []
    if skipped:
        (mark,) = needs_pg.added
        assert mark.name == "skip" and "needs PostgreSQL" in mark.kwargs["reason"]
    else:
        assert needs_pg.added == []

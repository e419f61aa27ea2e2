"""Many rows written in one statement with little Python work per row.

``bulk_create`` builds a model instance per row and prepares and adapts every field of
every row in Python: for the 102 audit events of a whole-sheet save that is ~7 ms of CPU,
most of a save's cost (bench/README.md). On PostgreSQL ``rows_insert`` sends the rows as
one JSON document instead (``json.dumps`` is C) and lets the server unpack it
(``jsonb_array_elements``): the same rows in ~0.5 ms. Elsewhere (SQLite for ``make run``) it
is ``bulk_create``, so every database gets the same rows.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import connection, models


def rows_insert(
    model: type[models.Model],
    rows: Sequence[Mapping[str, Any]],
    *,
    same: Mapping[str, Any] | None = None,
    conflict: Sequence[str] = (),
    update: Sequence[str] = (),
) -> None:
    """Insert ``rows`` (field name -> value) into ``model``'s table in one statement.

    ``same`` holds the values every row shares (any value the database adapter takes,
    datetimes included); ``rows`` values must be JSON values (str, int, float, bool, None,
    or any JSON value for a JSONField). Every concrete field but the primary key must be
    given, by name or attname (``sheet`` or ``sheet_id``): no model defaults are filled in.
    With ``conflict`` (the fields of a unique constraint), a row that exists has its
    ``update`` fields overwritten (``ON CONFLICT ... DO UPDATE``)."""
    if not rows:
        return
    same = dict(same or {})
    if connection.vendor == "postgresql":
        sql = _insert_sql(model, tuple(same), tuple(rows[0]), tuple(conflict), tuple(update))
        meta = model._meta
        params: list[Any] = [
            meta.get_field(name).get_db_prep_save(value, connection)  # type: ignore[union-attr]
            for name, value in same.items()
        ]
        per_row = list(rows[0])
        params.append(json.dumps([[row[name] for name in per_row] for row in rows]))
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
    else:
        _fields(model, [*same, *rows[0]])
        rows_insert_orm(model, rows, same=same, conflict=conflict, update=update)


def table(model: type[models.Model]) -> str:
    """The quoted table of a model, for SQL made from the models' ``_meta``."""
    return connection.ops.quote_name(model._meta.db_table)


def column(model: type[models.Model], name: str) -> str:
    """The quoted column of a model's field (``sheet`` -> ``"sheet_id"``), for SQL made from
    the models' ``_meta`` rather than written with names that could drift from them."""
    field = model._meta.get_field(name)
    if not isinstance(field, models.Field):
        raise ValueError(f"{model.__name__}.{name} is not a column")
    return connection.ops.quote_name(field.column)


def _fields(model: type[models.Model], names: list[str]) -> dict[str, models.Field]:
    meta = model._meta
    fields = {name: meta.get_field(name) for name in names}
    given = {field.name for field in fields.values()}
    missing = [f.name for f in meta.concrete_fields if not f.primary_key and f.name not in given]
    if missing:
        raise ValueError(f"rows_insert({model.__name__}): no value for {', '.join(missing)}")
    return fields  # type: ignore[return-value]


@functools.lru_cache(maxsize=64)
def _insert_sql(
    model: type[models.Model],
    same: tuple[str, ...],
    per_row: tuple[str, ...],
    conflict: tuple[str, ...],
    update: tuple[str, ...],
) -> str:
    """PostgreSQL: ``INSERT ... SELECT ... FROM jsonb_array_elements(%s)``, made once per
    shape of call. The rows travel as JSON arrays, one per row (``["x", 3]``), unpacked by
    position: ``jsonb_array_elements`` and ``->>`` casts need no per-row key names."""
    fields = _fields(model, [*same, *per_row])
    columns = [column(model, name) for name in [*same, *per_row]]
    shared = [f"CAST(%s AS {fields[name].db_type(connection)})" for name in same]
    picked = [_element(i, fields[name]) for i, name in enumerate(per_row)]
    # names and types come from the model's _meta, every value is a parameter
    sql = (
        f"INSERT INTO {table(model)} ({', '.join(columns)}) "  # noqa: S608
        f"SELECT {', '.join([*shared, *picked])} "
        f"FROM jsonb_array_elements(CAST(%s AS jsonb)) AS r(row)"
    )
    if conflict:
        keys = ", ".join(column(model, name) for name in conflict)
        sets = ", ".join(f"{column(model, name)} = EXCLUDED.{column(model, name)}" for name in update)
        sql += f" ON CONFLICT ({keys}) DO UPDATE SET {sets}" if sets else f" ON CONFLICT ({keys}) DO NOTHING"
    return sql


def _element(i: int, field: models.Field) -> str:
    """Element ``i`` of a row's JSON array as the column's type: a JSONField takes the JSON
    value itself (JSON null -> SQL NULL, as Django stores None), any other column its text."""
    if isinstance(field, models.JSONField):
        return f"NULLIF(r.row -> {i}, 'null'::jsonb)"
    return f"CAST(r.row ->> {i} AS {field.db_type(connection)})"


def rows_insert_orm(
    model: type[models.Model],
    rows: Sequence[Mapping[str, Any]],
    *,
    same: Mapping[str, Any],
    conflict: Sequence[str] = (),
    update: Sequence[str] = (),
) -> None:
    """Any database: ``bulk_create``."""
    model._default_manager.bulk_create(
        [model(**same, **row) for row in rows],
        update_conflicts=bool(conflict),
        unique_fields=list(conflict) or None,
        update_fields=list(update) or None,
    )

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
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.db import DatabaseError, connection, models, transaction


def rows_insert(
    model: type[models.Model],
    rows: Sequence[Mapping[str, Any]],
    *,
    same: Mapping[str, Any] | None = None,
    conflict: Sequence[str] = (),
    update: Sequence[str] = (),
    writes: Writes | None = None,
) -> None:
    """Insert ``rows`` (field name -> value) into ``model``'s table in one statement
    (with ``writes``: added to them, sent when they are).

    ``same`` holds the values every row shares (any value the database adapter takes,
    datetimes included); ``rows`` values must be JSON values (str, int, float, bool, None,
    or any JSON value for a JSONField). Every concrete field but the primary key must be
    given, by name or attname (``sheet`` or ``sheet_id``): no model defaults are filled in.
    With ``conflict`` (the fields of a unique constraint), a row that exists has its
    ``update`` fields overwritten (``ON CONFLICT ... DO UPDATE``)."""
    if not rows:
        return
    same = dict(same or {})
    batch = writes if writes is not None else Writes()
    if connection.vendor == "postgresql":
        sql = _insert_sql(model, tuple(same), tuple(rows[0]), tuple(conflict), tuple(update))
        meta = model._meta
        params: list[Any] = [
            meta.get_field(name).get_db_prep_save(value, connection)  # type: ignore[union-attr]
            for name, value in same.items()
        ]
        per_row = list(rows[0])
        params.append(json.dumps([[row[name] for name in per_row] for row in rows]))
        batch.add(sql, params)
    else:
        _fields(model, [*same, *rows[0]])
        batch.add_call(
            functools.partial(rows_insert_orm, model, rows, same=same, conflict=conflict, update=update)
        )
    if writes is None:
        batch.send()


def row_update(instance: models.Model, fields: Sequence[str], *, writes: Writes | None = None) -> None:
    """``instance.save(update_fields=fields)`` as one ``UPDATE ... WHERE pk = %s`` made once
    per model and set of fields (the ORM compiled the sheet's 5-8 field UPDATE on every
    save in about as much CPU as PostgreSQL took to run it); with ``writes``, added to them.
    The values are taken as they are: no ``auto_now``, no signals. Raises ``DatabaseError``
    when no row was updated, as ``save(update_fields=...)`` does."""
    model = type(instance)
    meta = model._meta
    names = tuple(fields)
    params: list[Any] = []
    for name in names:
        field = meta.get_field(name)
        params.append(field.get_db_prep_save(getattr(instance, field.attname), connection))  # type: ignore[union-attr]
    params.append(instance.pk)
    batch = writes if writes is not None else Writes()
    batch.add(_update_sql(model, names), params, rows=1, what=f"{model.__name__} {instance.pk}")
    if writes is None:
        batch.send()


class Writes:
    """Writes sent together at ``send()``, in the order they were added, all or none: on
    PostgreSQL the statements go in one round trip (the text of several statements in one
    ``execute``, which psycopg's client-side binding, Django's default, allows), elsewhere
    one by one. A whole-sheet save's upserts, UPDATE and audit INSERT cost four round trips'
    worth of driver and Django work before."""

    def __init__(self) -> None:
        self._statements: list[tuple[str, list[Any], int | None, str] | Callable[[], None]] = []

    def add(self, sql: str, params: Sequence[Any], *, rows: int | None = None, what: str = "") -> None:
        """Add a statement; with ``rows``, ``send`` raises ``DatabaseError`` (and writes
        nothing) unless it touches exactly that many rows."""
        self._statements.append((sql, list(params), rows, what))

    def add_call(self, write: Callable[[], None]) -> None:
        """Add a write made by other means (the ORM), run in its turn."""
        self._statements.append(write)

    def send(self) -> None:
        steps, self._statements = self._statements, []
        if not steps:
            return
        # inside the caller's transaction (the save's) no savepoint: the batch is one more statement
        with transaction.atomic(savepoint=False), connection.cursor() as cursor:
            statements = [step for step in steps if not callable(step)]
            if len(statements) == len(steps) and _one_round_trip():
                cursor.execute(
                    "; ".join(sql for sql, *_ in statements), [p for _, ps, *_ in statements for p in ps]
                )
                counts = [cursor.rowcount]
                while cursor.nextset():
                    counts.append(cursor.rowcount)
            else:
                counts = []
                for step in steps:
                    if callable(step):
                        step()
                    else:
                        cursor.execute(step[0], step[1])
                        counts.append(cursor.rowcount)
            if len(counts) != len(statements):
                raise DatabaseError(f"{len(statements)} statements sent, {len(counts)} results")
            for (_sql, _params, rows, what), count in zip(statements, counts, strict=True):
                if rows is not None and count != rows:
                    raise DatabaseError(f"{what}: {count} rows written, {rows} expected")


def _one_round_trip() -> bool:
    """PostgreSQL with client-side binding: several statements may share one execute."""
    return connection.vendor == "postgresql" and not connection.settings_dict.get("OPTIONS", {}).get(
        "server_side_binding"
    )


@functools.lru_cache(maxsize=64)
def _update_sql(model: type[models.Model], fields: tuple[str, ...]) -> str:
    sets = ", ".join(f"{column(model, name)} = %s" for name in fields)
    return f"UPDATE {table(model)} SET {sets} WHERE {column(model, model._meta.pk.name)} = %s"  # noqa: S608


def row_columns(model: type[models.Model]) -> str:
    """The quoted, table-qualified columns of every concrete field of ``model``, in the
    order of ``model_from_row``'s values."""
    return ", ".join(
        f"{table(model)}.{connection.ops.quote_name(f.column)}" for f in model._meta.concrete_fields
    )


def model_from_row(model: type[models.Model], row: Sequence[Any]):
    """An instance of ``model`` from a row of ``row_columns(model)``, as the ORM makes it:
    each column through the converters the ORM applies (JSON decoded, SQLite's dates and
    booleans typed), then ``Model.from_db``."""
    names, converters = _row_reading(model)
    values = list(row)
    for i, col, functions in converters:
        for convert in functions:
            values[i] = convert(values[i], col, connection)
    return model.from_db(connection.alias, names, values)


@functools.lru_cache(maxsize=32)
def _row_reading(model: type[models.Model]) -> tuple[list[str], list[tuple[int, Any, list]]]:
    """The attnames of ``model``'s concrete fields and, for the columns that have any, the
    converters the ORM's compiler applies to them: the backend's, then the field's."""
    converters = []
    for i, field in enumerate(model._meta.concrete_fields):
        col = field.get_col(model._meta.db_table)
        functions = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
        if functions:
            converters.append((i, col, functions))
    return [f.attname for f in model._meta.concrete_fields], converters


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

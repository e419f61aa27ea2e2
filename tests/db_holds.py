"""Another process's hold on the database, for tests of waiting through it: SQLite's write lock
on the whole file, a PostgreSQL row lock; this thread's connection meanwhile gives up soon."""

import sqlite3
from contextlib import contextmanager

import psycopg
import psycopg.sql
from django.db import connection


@contextmanager
def connection_options(**options):
    """Reconnect with these connection options (a short busy or lock timeout), then as before."""
    saved = dict(connection.settings_dict.get("OPTIONS", {}))
    connection.close()
    connection.settings_dict["OPTIONS"] = {**saved, **options}
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict["OPTIONS"] = saved


def short_waits():
    """This thread's connection waits half a second for a held database, then fails."""
    if connection.vendor == "sqlite":
        return connection_options(timeout=0.5)
    return connection_options(options="-c lock_timeout=500")


@contextmanager
def hold_taken(table: str, row_id: int):
    """Another connection's hold, taken from any thread: SQLite's write lock on the whole file,
    a PostgreSQL row lock on the row."""
    settings_dict = connection.settings_dict
    if connection.vendor == "sqlite":
        other = sqlite3.connect(settings_dict["NAME"], isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            other.execute("ROLLBACK")
            other.close()
        return
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params) as other:
        locking = psycopg.sql.SQL("SELECT id FROM {} WHERE id = %s FOR UPDATE").format(
            psycopg.sql.Identifier(table)
        )
        other.execute(locking, [row_id])
        yield
        other.rollback()


@contextmanager
def database_held(table: str, row_id: int):
    """The hold on ``row_id`` of ``table`` while this thread's connection waits briefly."""
    with hold_taken(table, row_id), short_waits():
        yield

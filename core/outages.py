"""Errors that say a piece of infrastructure is away (Redis as broker, cache, lease store or
pacing schedule; the broker behind Celery), not that the work is wrong.

Work that meets one waits and tries again; it never fails for it before its deadline
(``ENGINE_OUTAGE_WAIT_SECONDS`` for the LLM batch engine's jobs).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from typing import TypeVar

import kombu.exceptions
import redis.exceptions
from django.db import InterfaceError, OperationalError, close_old_connections, transaction

logger = logging.getLogger(__name__)
T = TypeVar("T")

# PostgreSQL's codes for a database that is busy or away, not for a wrong statement: class 08
# (connection), 40001/40P01 (serialization, deadlock), 55P03 (lock timeout), 57014 (statement
# timeout), 57P01-57P03 (shut down, restarting, not accepting connections yet).
_POSTGRES_BUSY = ("08", "40001", "40P01", "55P03", "57014", "57P01", "57P02", "57P03")
# SQLite says so in words (its Python module has no codes for them).
_SQLITE_BUSY = ("database is locked", "database table is locked")

INFRASTRUCTURE_ERRORS: tuple[type[Exception], ...] = (
    redis.exceptions.ConnectionError,  # refused, reset, loading its data after a restart
    redis.exceptions.TimeoutError,
    kombu.exceptions.OperationalError,  # the broker, through Celery
)


def outage_reason(error: BaseException) -> str:
    """What is away and why, in one short English line (stored on the job, like its errors)."""
    what = "the broker" if isinstance(error, kombu.exceptions.OperationalError) else "Redis"
    detail = " ".join(str(error).split())[:140]
    return f"{what} is unreachable ({type(error).__name__}: {detail})" if detail else f"{what} is unreachable"


def database_busy(error: BaseException) -> bool:
    """Whether ``error`` says the database is busy or away (locked, restarting, unreachable,
    a lock or statement timeout): a request that met it can be sent again as it was. A wrong
    statement (no such table, a syntax error) is not: that is a bug and stays a 500."""
    if isinstance(error, InterfaceError):
        return True  # the connection was closed under us
    if not isinstance(error, OperationalError):
        return False
    cause = error.__cause__
    sqlstate = getattr(cause, "sqlstate", None)
    if sqlstate is not None:
        return str(sqlstate).startswith(_POSTGRES_BUSY)
    if type(cause).__module__.startswith("psycopg"):
        return True  # psycopg's OperationalError without a code: the connection failed
    return any(words in str(error).lower() for words in _SQLITE_BUSY)


def database_write_patiently(write: Callable[[], T], *, seconds: float) -> T:
    """``write()`` (one transaction of its own), done again while the database is busy or away,
    for up to ``seconds``: what was paid for before it (an LLM's answer) is kept through a blip
    instead of being bought again. Any other error, or a blip that outlasts ``seconds``, raises."""
    deadline = time.monotonic() + seconds
    pause = 0.25
    while True:
        try:
            return write()
        except (OperationalError, InterfaceError) as exc:
            if not database_busy(exc) or time.monotonic() + pause > deadline:
                raise
            logger.warning("the database is busy or away; writing again in %.2f s: %s", pause, exc)
        time.sleep(pause)
        pause = min(2 * pause, 5.0)
        # A broken connection is dropped, so the next try opens a new one (never inside a
        # caller's transaction, which must fail as a whole).
        with contextlib.suppress(OperationalError, InterfaceError):
            if transaction.get_autocommit():
                close_old_connections()

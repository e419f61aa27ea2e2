"""The session store: Django's database sessions, read with SQL made once.

Every request of a logged-in rater loads its session. Django's store does it with
``Session.objects.get(session_key=..., expire_date__gt=now)``, and compiling that query
took more CPU than PostgreSQL's answer (about a tenth of a whole-sheet save's web CPU,
bench/README.md). This store sends the same SELECT, built once from the model's
``_meta``; saving, creating, deleting and ``clearsessions`` are Django's own.
"""

from __future__ import annotations

import functools
from typing import Any

from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.db import connections, router
from django.utils import timezone

from core.db.bulk import column, table


class SessionStore(DatabaseSessionStore):
    def load(self) -> dict[str, Any]:
        """The session's data, or ``{}`` (and no key) when it is unknown or expired, as
        Django's ``load``; a tampered payload is refused by ``decode``."""
        model = self.model
        alias = router.db_for_read(model)
        db = connections[alias]
        # the time as the ORM would send it (naive UTC on a database without time zones)
        now = model._meta.get_field("expire_date").get_db_prep_value(timezone.now(), db)
        with db.cursor() as cursor:
            cursor.execute(_load_sql(model), [self.session_key, now])
            row = cursor.fetchone()
        if row is None:
            self._session_key = None
            return {}
        return self.decode(row[0])


@functools.cache
def _load_sql(model) -> str:
    return (
        f"SELECT {column(model, 'session_data')} FROM {table(model)} "  # noqa: S608 (names from _meta)
        f"WHERE {column(model, 'session_key')} = %s AND {column(model, 'expire_date')} > %s"
    )

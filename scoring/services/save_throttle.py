"""A ceiling on autosave batches per sheet per second, so that no client can flood a
sheet's audit trail: ``SHEET_SAVES_PER_SECOND`` batches of one account on one sheet in
one clock second, counted in Django's cache (Redis). A cache that is away lets saves
through (the ceiling guards the audit trail's size, never a score)."""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache

from core.cache_counts import cache_count_increment


def sheet_save_throttle(*, user_id: int, sheet_id: int) -> int:
    """Count one save batch of ``user_id`` on ``sheet_id``; 0 when it may proceed, else
    the seconds to wait before the next (Retry-After). Keyed by the account as well as
    the sheet id the client names, so that nobody can use up another rater's budget."""
    limit = settings.SHEET_SAVES_PER_SECOND
    if limit <= 0:
        return 0
    second = int(time.time())
    key = f"sheet-saves:{user_id}:{sheet_id}:{second}"
    count = cache_count_increment(cache=cache, key=key, timeout=5)
    if count is None:  # the cache is away (django-redis ignores it, logged): never stops a save
        return 0
    return 0 if count <= limit else 1

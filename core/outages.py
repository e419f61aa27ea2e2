"""Errors that say a piece of infrastructure is away (Redis as broker, cache, lease store or
pacing schedule; the broker behind Celery), not that the work is wrong.

Work that meets one waits and tries again; it never fails for it before its deadline
(``ENGINE_OUTAGE_WAIT_SECONDS`` for the LLM batch engine's jobs).
"""

from __future__ import annotations

import kombu.exceptions
import redis.exceptions

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

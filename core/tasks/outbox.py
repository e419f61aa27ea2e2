"""Celery tasks that must run after a commit, through a transactional outbox.

Services never import task modules (tasks import services, never the other way
round) and web processes never import a worker's code: they dispatch a task by name
with :func:`task_send_on_commit`. That records a :class:`~studies.models.TaskOutbox`
row in the caller's transaction, so the task exists exactly when the data it works on
was committed, and tries to send it as soon as the transaction commits. A broker that
cannot be reached is logged, never raised to the caller (the request that committed
answers normally). The workers' sweep (:func:`outbox_sweep`, run by every worker
through ``core.tasks.periodic``) sends what is still pending once the broker answers.

Each row is claimed before it is sent (a compare-and-set on ``claimed_until``), so the
committing process and the sweeps of several workers never send it twice; a sender
that dies between sending and marking the row sent makes it be sent again later, so
every task dispatched here is idempotent on the receiving side.

A task the broker took is still owed until a worker has run it: each message carries
its row in its task id (``outbox-<pk>-...``); a worker marks the row received when the
message reaches it and done when the task returned (Celery's ``task_received`` and
``task_success`` signals). A row sent but never received once the queue is empty (a
broker that restarted without its data) is sent again after ``OUTBOX_REDELIVER_SECONDS``;
one received but never done (its worker and the broker's copy both gone) after
``OUTBOX_STALLED_SECONDS``; at most ``OUTBOX_MAX_SENDS`` times.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from celery.signals import task_failure, task_received, task_success
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from core.models import TaskOutbox

logger = logging.getLogger(__name__)

# How long a sender owns a row it claimed (then another sender may take it over).
CLAIM_SECONDS = 60
# The committing process gets the first try: a sweep leaves younger rows alone.
SWEEP_GRACE_SECONDS = 2
# Sent rows are kept this long (for the status page), then deleted by the sweep.
KEEP_SENT = timedelta(days=1)
# Publishing retries a little (a broker restarting), then gives up: the sweep goes on.
# A sweep that finds the broker away says so at most this often.
WARN_EVERY_SECONDS = 60
SEND_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}


def task_send_on_commit(*, name: str, args: Iterable[Any] = (), countdown: float | None = None) -> TaskOutbox:
    """Record task ``name(*args)`` in the current transaction and send it after commit.

    Outside a transaction (autocommit) the row is written and sent at once. If the
    transaction rolls back, the row goes with it and nothing is sent."""
    row = TaskOutbox.objects.create(task_name=name, args=list(args), countdown=countdown or None)
    transaction.on_commit(lambda: _send_after_commit(row), robust=True)
    return row


def _send_after_commit(row: TaskOutbox) -> None:
    try:
        outbox_send(row)
    except Exception:  # a database error while marking the row: the sweep sends it
        logger.exception("could not dispatch %s; the workers' sweep will", row)


def _unclaimed(now: datetime) -> Q:
    return Q(sent_at__isnull=True) & (Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))


TASK_ID_PREFIX = "outbox-"


def outbox_task_id(pk: int) -> str:
    """A new Celery task id naming the row (a fresh one per send: a late answer of an earlier
    send still finds its row)."""
    return f"{TASK_ID_PREFIX}{pk}-{uuid.uuid4().hex[:12]}"


def outbox_row_of(task_id: str | None) -> int | None:
    if not task_id or not task_id.startswith(TASK_ID_PREFIX):
        return None
    head = task_id[len(TASK_ID_PREFIX) :].split("-", 1)[0]
    return int(head) if head.isdigit() else None


def _publish(row: TaskOutbox) -> None:
    app = current_app
    if app.conf.task_always_eager:  # debugging: run in-process, as .delay() would
        app.tasks[row.task_name].apply(args=row.args)
        TaskOutbox.objects.filter(pk=row.pk).update(done_at=timezone.now())
        return
    app.send_task(
        row.task_name,
        args=list(row.args),
        countdown=row.countdown,
        task_id=outbox_task_id(row.pk),
        retry=True,
        retry_policy=SEND_RETRY_POLICY,
    )


def _sent(pk: int) -> None:
    TaskOutbox.objects.filter(pk=pk).update(
        sent_at=timezone.now(),
        claimed_until=None,
        attempts=F("attempts") + 1,
        last_error="",
        received_at=None,
    )


def _failed(pk: int, exc: BaseException) -> None:
    TaskOutbox.objects.filter(pk=pk).update(
        claimed_until=None, attempts=F("attempts") + 1, last_error=f"{type(exc).__name__}: {exc}"[:2000]
    )


def outbox_send(row: TaskOutbox) -> bool:
    """Claim the row and send its task; False when another sender has it, it was
    sent already, or the broker refused (the error is recorded on the row)."""
    now = timezone.now()
    claimed = TaskOutbox.objects.filter(_unclaimed(now), pk=row.pk).update(
        claimed_until=now + timedelta(seconds=CLAIM_SECONDS)
    )
    if not claimed:
        return False
    try:
        _publish(row)
    except Exception as exc:
        _failed(row.pk, exc)
        logger.warning("task %s not sent (%s); it stays in the outbox", row, exc)
        return False
    _sent(row.pk)
    return True


def outbox_sweep(*, limit: int = 500) -> int:
    """Send pending tasks, oldest first; stop at the first broker error (the broker is
    away: the next sweep tries again). Also forgets rows sent long ago. Returns how
    many tasks were sent. Several workers may sweep at once: each row is claimed by
    one of them (``SELECT ... FOR UPDATE SKIP LOCKED`` where the database has it)."""
    now = timezone.now()
    TaskOutbox.objects.filter(done_at__lt=now - KEEP_SENT).delete()
    with transaction.atomic():
        rows = list(
            TaskOutbox.objects.select_for_update(skip_locked=True)
            .filter(_unclaimed(now), created_at__lt=now - timedelta(seconds=SWEEP_GRACE_SECONDS))
            .order_by("pk")[:limit]
        )
        TaskOutbox.objects.filter(pk__in=[row.pk for row in rows]).update(
            claimed_until=now + timedelta(seconds=CLAIM_SECONDS)
        )
    sent = 0
    for index, row in enumerate(rows):
        try:
            _publish(row)
        except Exception as exc:
            _failed(row.pk, exc)
            rest = [other.pk for other in rows[index + 1 :]]
            TaskOutbox.objects.filter(pk__in=rest).update(claimed_until=None)
            _warn_unreachable(
                "broker unreachable (%s): %d task(s) wait in the outbox", exc, len(rows) - index
            )
            break
        _sent(row.pk)
        sent += 1
    if sent:
        logger.info("sent %d task(s) left in the outbox", sent)
    if len(rows) == sent:  # the broker answers: look for what it took and lost
        sent += outbox_redeliver(limit=limit)
    return sent


def _queue_length() -> int | None:
    """Messages waiting in this deployment's queue; None when the broker cannot say."""
    from kombu.exceptions import ChannelError

    name = current_app.conf.task_default_queue
    try:
        with current_app.connection_for_read() as conn:
            try:
                return int(conn.default_channel.queue_declare(queue=name, passive=True).message_count)
            except ChannelError:
                return 0  # Redis keeps no empty list: no queue is an empty queue
    except Exception as exc:
        _warn_unreachable("cannot read the queue's length (%s): owed tasks wait", exc)
        return None


def outbox_owed(*, now: datetime | None = None) -> QuerySet[TaskOutbox]:
    """Tasks sent and not yet done whose message looks lost, for the sweep to send again."""
    now = now or timezone.now()
    sent_long_ago = now - timedelta(seconds=float(settings.OUTBOX_REDELIVER_SECONDS))
    stalled = now - timedelta(seconds=float(settings.OUTBOX_STALLED_SECONDS))
    return TaskOutbox.objects.filter(
        Q(claimed_until__isnull=True) | Q(claimed_until__lt=now),
        sent_at__isnull=False,
        done_at__isnull=True,
        attempts__lt=int(settings.OUTBOX_MAX_SENDS),
    ).filter(
        Q(received_at__isnull=True, sent_at__lt=sent_long_ago) | Q(received_at__lt=stalled),
    )


def outbox_redeliver(*, limit: int = 500) -> int:
    """Send again the tasks the broker took but no worker received (once the queue is empty:
    a message still waiting behind others is not lost) or finished long after receiving.
    Returns how many were sent."""
    now = timezone.now()
    owed = outbox_owed(now=now)
    if not owed.exists():
        return 0
    waiting = _queue_length()
    if waiting is None:
        return 0
    if waiting:
        owed = owed.filter(received_at__isnull=False)  # only the stalled ones
    with transaction.atomic():
        rows = list(owed.select_for_update(skip_locked=True).order_by("pk")[:limit])
        TaskOutbox.objects.filter(pk__in=[row.pk for row in rows]).update(
            claimed_until=now + timedelta(seconds=CLAIM_SECONDS)
        )
    sent = 0
    for row in rows:
        try:
            _publish(row)
        except Exception as exc:
            _failed(row.pk, exc)
            TaskOutbox.objects.filter(pk__in=[r.pk for r in rows], claimed_until__isnull=False).update(
                claimed_until=None
            )
            break
        _sent(row.pk)
        sent += 1
        if row.attempts + 1 >= int(settings.OUTBOX_MAX_SENDS):
            logger.error("task %s sent %d times and never done: no more resends", row, row.attempts + 1)
    if sent:
        logger.warning("sent %d task(s) again: the broker took them and no worker finished them", sent)
    return sent


# --- what the workers report ---------------------------------------------------------


def _outbox_received(request: object = None, **kwargs: object) -> None:
    pk = outbox_row_of(getattr(request, "id", None))
    if pk is not None:
        _mark(pk, received_at=timezone.now())


def _outbox_done(sender: object = None, **kwargs: object) -> None:
    pk = outbox_row_of(getattr(getattr(sender, "request", None), "id", None))
    if pk is not None:
        _mark(pk, done_at=timezone.now())


def _outbox_failed(
    task_id: str | None = None, exception: BaseException | None = None, **kwargs: object
) -> None:
    pk = outbox_row_of(task_id)
    if pk is not None:  # still owed: sent again past the deadline, up to OUTBOX_MAX_SENDS
        _mark(pk, last_error=f"{type(exception).__name__}: {exception}"[:2000])


# Connected by call rather than as decorators: celery's `Signal.connect` is untyped.
task_received.connect(_outbox_received, weak=False)
task_success.connect(_outbox_done, weak=False)
task_failure.connect(_outbox_failed, weak=False)


def _mark(pk: int, **fields: Any) -> None:
    try:
        TaskOutbox.objects.filter(pk=pk, done_at__isnull=True).update(**fields)
    except Exception:  # never fail a task for its bookkeeping: at worst it runs again
        logger.warning("could not mark outbox row %s %s", pk, sorted(fields), exc_info=True)


_last_warning = 0.0


def _warn_unreachable(message: str, *args: object) -> None:
    """Say it once a minute per process (sweeps run every few seconds), else at debug level."""
    global _last_warning
    now = time.monotonic()
    level = logging.WARNING if now - _last_warning >= WARN_EVERY_SECONDS else logging.DEBUG
    if level == logging.WARNING:
        _last_warning = now
    logger.log(level, message, *args)


def outbox_pending_count() -> int:
    """Tasks recorded but not yet taken by the broker."""
    return TaskOutbox.objects.filter(sent_at__isnull=True).count()


def outbox_pending_subjects(*, name: str) -> set[Any]:
    """The first arguments (the ids the tasks work on) of the pending tasks ``name``."""
    return {
        args[0]
        for args in TaskOutbox.objects.filter(task_name=name, sent_at__isnull=True).values_list(
            "args", flat=True
        )
        if args
    }

"""The transactional outbox (``core.tasks.outbox``): a task is recorded with the
transaction that needs it, sent after its commit, kept while the broker is away,
sent by the workers' sweep once it answers, and never sent twice by two senders."""

from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.db import transaction
from django.utils import timezone

from core.models import TaskOutbox
from core.tasks import outbox as outbox_module
from core.tasks import periodic as periodic_module
from core.tasks.outbox import (
    outbox_pending_count,
    outbox_redeliver,
    outbox_send,
    outbox_sweep,
    outbox_task_id,
    task_send_on_commit,
)
from tests.brokers import celery_broker, free_port

# Each test runs in a transaction that is never committed (the session's worker, which
# sweeps the outbox too, never sees these rows); the test's own commits are simulated by
# running the on-commit callbacks when its outermost ``atomic`` block ends.
pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    """The broker, as far as this process sees it: what was published, in order."""
    return _fake_broker(monkeypatch)


def _fake_broker(monkeypatch) -> list:
    from teamllm_web.celery import app

    published = []

    def send_task(name, args=None, countdown=None, **options):
        if name == "fails":
            raise ConnectionRefusedError("broker says no")
        published.append((name, list(args or ()), countdown))

    monkeypatch.setattr(app, "send_task", send_task)
    return published


def _age(seconds: float = 60) -> None:
    """Make every row older than the sweep's grace period (the committer had its try)."""
    TaskOutbox.objects.update(created_at=timezone.now() - timedelta(seconds=seconds))


def test_the_outbox_row_is_rolled_back_with_its_transaction(sent, django_capture_on_commit_callbacks):
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        task_send_on_commit(name="calibration.tasks.response_scores_changed", args=(1,))
        assert TaskOutbox.objects.filter(sent_at__isnull=True).count() == 1  # recorded with it
        raise RuntimeError("the transaction fails")
    assert not TaskOutbox.objects.exists()
    assert callbacks == [] and sent == []  # and nothing was sent


def test_a_task_is_recorded_in_the_transaction_and_sent_after_commit(
    sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        row = task_send_on_commit(name="generation.tasks.run_advance", args=(7, 2), countdown=1.5)
        assert sent == []  # not before the commit: the task would not see the rows
    assert sent == [("generation.tasks.run_advance", [7, 2], 1.5)]
    row.refresh_from_db()
    assert row.sent_at is not None and row.attempts == 1 and row.last_error == ""
    assert outbox_pending_count() == 0
    _age()
    assert outbox_sweep() == 0 and len(sent) == 1  # a sent row is never sent again


def test_an_unreachable_broker_is_recorded_not_raised_and_the_sweep_sends_later(
    monkeypatch, caplog, django_capture_on_commit_callbacks
):
    with celery_broker(f"redis://127.0.0.1:{free_port()}/0"):  # nothing listens there
        with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
            task_send_on_commit(name="research.tasks.export_job_run_task", args=(5,))
        row = TaskOutbox.objects.get()  # the commit went through, the caller saw no error
        assert row.sent_at is None and row.attempts == 1
        assert "Error" in row.last_error or "refused" in row.last_error.lower()
        assert "stays in the outbox" in caplog.text
        assert outbox_sweep() == 0  # too young: the committing process had its try moments ago
        _age()
        assert outbox_sweep() == 0  # still away
        row.refresh_from_db()
        assert row.sent_at is None and row.attempts == 2 and row.claimed_until is None
    sent = _fake_broker(monkeypatch)  # the broker answers again
    assert outbox_sweep() == 1
    assert sent == [("research.tasks.export_job_run_task", [5], None)]
    assert outbox_pending_count() == 0


def test_two_senders_never_send_a_row_twice(sent):
    row = TaskOutbox.objects.create(task_name="calibration.tasks.response_scores_changed", args=[9])
    _age()
    TaskOutbox.objects.update(claimed_until=timezone.now() + timedelta(seconds=30))  # a sender has it
    assert outbox_send(row) is False
    assert outbox_sweep() == 0 and sent == []
    TaskOutbox.objects.update(claimed_until=timezone.now() - timedelta(seconds=1))  # that sender died
    assert outbox_sweep() == 1
    assert outbox_send(row) is False  # the committer's late try finds it sent
    assert sent == [("calibration.tasks.response_scores_changed", [9], None)]


def test_a_sweep_stops_at_the_first_broker_error_and_releases_the_rest(sent):
    for name in ("fails", "a.b", "c.d"):
        TaskOutbox.objects.create(task_name=name, args=[1])
    _age()
    assert outbox_sweep() == 0  # the first one fails: the broker is away, try again later
    rows = {row.task_name: row for row in TaskOutbox.objects.all()}
    assert rows["fails"].attempts == 1 and "broker says no" in rows["fails"].last_error
    assert all(row.claimed_until is None and row.sent_at is None for row in rows.values())
    TaskOutbox.objects.filter(task_name="fails").delete()
    assert outbox_sweep() == 2
    assert [name for name, _, _ in sent] == ["a.b", "c.d"]  # oldest first


def test_the_sweep_forgets_rows_done_long_ago(sent, monkeypatch):
    # redelivery waits for an empty queue: messages other tests left in this session's queue
    # (no worker consumed them) must not decide this test
    monkeypatch.setattr("core.tasks.outbox._queue_length", lambda: 0)
    long_ago = timezone.now() - timedelta(days=2)
    old = TaskOutbox.objects.create(task_name="a.b", args=[], sent_at=long_ago, done_at=long_ago)
    recent = TaskOutbox.objects.create(
        task_name="a.b", args=[], sent_at=timezone.now(), done_at=timezone.now()
    )
    owed = TaskOutbox.objects.create(task_name="c.d", args=[7], sent_at=long_ago, attempts=1)
    outbox_sweep()
    assert list(TaskOutbox.objects.values_list("pk", flat=True)) == [recent.pk, owed.pk]
    assert old.pk != recent.pk
    assert sent == [("c.d", [7], None)]  # sent long ago and never received: sent again


def _owed(**fields):
    long_ago = timezone.now() - timedelta(seconds=120)
    return TaskOutbox.objects.create(task_name="o.wed", args=[1], sent_at=long_ago, attempts=1, **fields)


def test_a_task_the_broker_lost_is_sent_again_until_a_worker_finishes_it(sent, monkeypatch, settings):
    settings.OUTBOX_REDELIVER_SECONDS = 60
    monkeypatch.setattr("core.tasks.outbox._queue_length", lambda: 0)
    lost = _owed()
    fresh = TaskOutbox.objects.create(task_name="f.resh", args=[], sent_at=timezone.now(), attempts=1)
    received = _owed(received_at=timezone.now() - timedelta(seconds=100))  # a worker has it
    done = _owed(done_at=timezone.now())
    assert outbox_redeliver() == 1 and [name for name, _, _ in sent] == ["o.wed"]
    lost.refresh_from_db()
    assert lost.attempts == 2 and lost.done_at is None and lost.sent_at > fresh.sent_at - timedelta(seconds=5)
    # the worker reports it: received, then done (the task id names the row)
    task_id = outbox_task_id(lost.pk)
    outbox_module._outbox_received(request=SimpleNamespace(id=task_id))
    outbox_module._outbox_done(sender=SimpleNamespace(request=SimpleNamespace(id=task_id)))
    lost.refresh_from_db()
    assert lost.received_at is not None and lost.done_at is not None
    TaskOutbox.objects.filter(pk=lost.pk).update(sent_at=timezone.now() - timedelta(seconds=120))
    assert outbox_redeliver() == 0  # done: owed no more
    assert {received.pk, done.pk, fresh.pk} <= set(TaskOutbox.objects.values_list("pk", flat=True))


def test_a_message_waiting_behind_others_is_not_sent_again(sent, monkeypatch, settings):
    settings.OUTBOX_REDELIVER_SECONDS = 60
    monkeypatch.setattr("core.tasks.outbox._queue_length", lambda: 40)
    _owed()
    assert outbox_redeliver() == 0 and sent == []
    stalled = _owed(received_at=timezone.now() - timedelta(hours=2))  # received, never finished
    assert outbox_redeliver() == 1 and sent == [("o.wed", [1], None)]
    stalled.refresh_from_db()
    assert stalled.received_at is None and stalled.attempts == 2


def test_a_task_sent_too_often_is_given_up(sent, monkeypatch, settings):
    settings.OUTBOX_MAX_SENDS = 3
    monkeypatch.setattr("core.tasks.outbox._queue_length", lambda: 0)
    TaskOutbox.objects.create(
        task_name="o.wed", args=[1], sent_at=timezone.now() - timedelta(seconds=120), attempts=3
    )
    assert outbox_redeliver() == 0 and sent == []


def test_a_failed_task_stays_owed_with_its_error():
    row = _owed()
    outbox_module._outbox_failed(task_id=outbox_task_id(row.pk), exception=RuntimeError("database gone"))
    row.refresh_from_db()
    assert row.done_at is None and row.last_error == "RuntimeError: database gone"
    outbox_module._outbox_done(sender=SimpleNamespace(request=SimpleNamespace(id="not-ours-1")))
    assert TaskOutbox.objects.filter(done_at__isnull=False).count() == 0


def test_periodic_jobs_run_when_due_and_a_failing_one_stops_no_other(monkeypatch):
    monkeypatch.setattr(periodic_module.Periodic, "ensure_started", lambda self: None)
    jobs = periodic_module.Periodic()
    ran = []

    def broken():
        raise RuntimeError("boom")

    jobs.every(60, name="broken", run=broken)
    jobs.every(60, name="fine", run=lambda: ran.append("fine"))
    jobs.every(60, name="later", run=lambda: ran.append("later"), now=False)
    jobs.tick()
    jobs.tick()  # within the period: nothing runs again
    assert ran == ["fine"]


def test_every_worker_sweeps_the_outbox(monkeypatch, settings):
    from studies import tasks as studies_tasks

    monkeypatch.setattr(periodic_module.Periodic, "ensure_started", lambda self: None)
    fresh = periodic_module.Periodic()
    monkeypatch.setattr(periodic_module, "_periodic", fresh)
    settings.OUTBOX_SWEEP_SECONDS = 3
    studies_tasks._sweep_the_outbox_in_this_worker(sender=None)
    assert fresh.jobs["outbox sweep"].run is outbox_sweep and fresh.jobs["outbox sweep"].every == 3

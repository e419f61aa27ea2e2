"""The transactional outbox (``core.tasks.outbox``): a task is recorded with the
transaction that needs it, sent after its commit, kept while the broker is away,
sent by the workers' sweep once it answers, and never sent twice by two senders."""

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from core.models import TaskOutbox
from core.tasks import periodic as periodic_module
from core.tasks.outbox import outbox_pending_count, outbox_send, outbox_sweep, task_send_on_commit
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


def test_the_sweep_forgets_rows_sent_long_ago(sent):
    old = TaskOutbox.objects.create(task_name="a.b", args=[], sent_at=timezone.now() - timedelta(days=2))
    recent = TaskOutbox.objects.create(task_name="a.b", args=[], sent_at=timezone.now())
    outbox_sweep()
    assert list(TaskOutbox.objects.values_list("pk", flat=True)) == [recent.pk]
    assert old.pk != recent.pk


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

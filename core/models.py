"""The infrastructure's own tables: the transactional outbox of Celery tasks and the
workers' heartbeats."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class TaskOutbox(models.Model):
    """A Celery task that must run after a commit, recorded in the same transaction
    (a transactional outbox): ``core.tasks.outbox`` sends it after the commit and the
    workers' sweep sends it again until the broker has taken it, and again past a deadline
    until a worker has run it (``done_at``): a broker that lost its messages loses nothing."""

    task_name = models.CharField(max_length=200)
    args = models.JSONField(default=list, blank=True)
    countdown = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    # A sender (the committing process or a worker's sweep) claims the row until then,
    # so two senders never send it twice; a sender that died lets the claim lapse.
    claimed_until = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    # A worker took the message from the broker (it cannot be lost in the broker any more) ...
    received_at = models.DateTimeField(null=True, blank=True)
    # ... and ran it to the end: its effect is recorded. Until then the task is owed.
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["pk"]
        verbose_name = _("task dispatch")
        indexes = [
            models.Index(
                fields=["created_at"], name="core_outbox_pending", condition=Q(sent_at__isnull=True)
            ),
            models.Index(fields=["sent_at"], name="core_outbox_sent"),
            models.Index(
                fields=["sent_at"],
                name="core_outbox_owed",
                condition=Q(done_at__isnull=True, sent_at__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        state = "done" if self.done_at else "sent" if self.sent_at else "pending"
        return f"{self.task_name}{tuple(self.args)} ({state})"


class WorkerBeat(models.Model):
    """A worker's last sign of life, written by its periodic thread. ``/status/`` reads it
    where workers cannot be asked (remote control off, as ``make run`` sets it on the
    filesystem broker)."""

    hostname = models.CharField(max_length=255, unique=True)
    queue = models.CharField(max_length=200)
    started_at = models.DateTimeField()
    beat_at = models.DateTimeField()

    class Meta:
        ordering = ["hostname"]
        verbose_name = _("worker heartbeat")
        verbose_name_plural = _("worker heartbeats")

    def __str__(self) -> str:
        return f"{self.hostname} ({self.queue})"


class EventCounter(models.Model):
    """A durable count of something that happens and leaves no row of its own (an
    agreement recompute): written by whichever process does it (a worker), read by the
    web's metrics endpoint at scrape time. Only ever incremented."""

    name = models.CharField(max_length=100, unique=True)
    value = models.BigIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("event counter")

    def __str__(self) -> str:
        return f"{self.name}={self.value}"

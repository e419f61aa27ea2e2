"""Model endpoints, conditions (strategies), and generation batches, runs and turns."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from studies.models import Condition, ModelEndpoint


class PreferenceProfile(models.Model):
    """A team member of a study and the preferences the member stated (e.g. in a
    questionnaire); TeamFusion gives each active one a proxy agent. Profiles without
    a study come from before profiles were per study and are not used."""

    study = models.ForeignKey(
        "studies.Study",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="member_profiles",
        verbose_name=_("study"),
    )
    name = models.CharField(_("member name"), max_length=80)
    preferences = models.TextField(
        _("stated preferences"),
        help_text=_("What the member said they want from the team's answer, in their own words."),
    )
    order = models.PositiveSmallIntegerField(_("order"), default=0)
    is_active = models.BooleanField(_("active"), default=True)

    class Meta:
        ordering = ["order", "name"]
        verbose_name = _("member profile")
        constraints = [
            models.UniqueConstraint(fields=["study", "name"], name="member_profile_unique_name_per_study")
        ]

    def __str__(self) -> str:
        return self.name


class BatchStatus(models.TextChoices):
    RUNNING = "running", _("Running")
    FINISHED = "finished", _("Finished")
    CANCELLED = "cancelled", _("Cancelled")


class RunStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    SUCCEEDED = "succeeded", _("Succeeded")
    FAILED = "failed", _("Failed")
    CANCELLED = "cancelled", _("Cancelled")


class EngineBatch(models.Model):
    """What every batch of the LLM batch engine has (``generation.services.engine``):
    a generation batch, a judge batch. Its jobs are one :class:`EngineJob` each."""

    status = models.CharField(max_length=12, choices=BatchStatus.choices, default=BatchStatus.RUNNING)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


class EngineJob(models.Model):
    """What every job of the LLM batch engine has: a generation run, a judge task. One
    job is a chain of calls made by its kind's protocol; the engine keeps these fields."""

    status = models.CharField(
        max_length=12, choices=RunStatus.choices, default=RunStatus.QUEUED, db_index=True
    )
    current_step = models.PositiveSmallIntegerField(default=0)
    current_phase = models.CharField(max_length=40, blank=True)
    calls_done = models.PositiveIntegerField(default=0)
    calls_total = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    attempts = models.PositiveIntegerField(
        default=0, help_text=_("How many times a worker started this job.")
    )
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    # When its latest task was queued: a job with no heartbeat since then past
    # ENGINE_START_SECONDS lost that task, and the sweeper queues it again.
    dispatched_at = models.DateTimeField(null=True, blank=True)
    # Time a worker spent on it (summed over its tasks): what cost figures count, so
    # waiting for a lost task does not inflate them.
    active_seconds = models.FloatField(default=0.0)
    recoveries = models.PositiveIntegerField(
        default=0, help_text=_("How many times the sweeper queued it again without a person.")
    )
    recovery_note = models.CharField(max_length=300, blank=True)
    # Paused by an outage (Redis, the broker): what it waits for and until when; past
    # ``waiting_until`` it fails with that reason. Cleared by its next finished call.
    waiting_for = models.CharField(max_length=200, blank=True)
    waiting_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


class GenerationBatch(EngineBatch):
    """Scenarios x model endpoints x conditions, launched together."""

    study = models.ForeignKey("studies.Study", on_delete=models.PROTECT, related_name="batches")
    name = models.CharField(_("name"), max_length=120, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("generation batch")
        verbose_name_plural = _("generation batches")

    def __str__(self) -> str:
        return self.name or f"Batch {self.pk}"


class GenerationRun(EngineJob):
    """One scenario answered by one model endpoint under one condition."""

    batch = models.ForeignKey(
        GenerationBatch, null=True, blank=True, on_delete=models.CASCADE, related_name="runs"
    )
    study = models.ForeignKey("studies.Study", on_delete=models.PROTECT, related_name="runs")
    scenario = models.ForeignKey("studies.Scenario", on_delete=models.PROTECT, related_name="runs")
    endpoint = models.ForeignKey(ModelEndpoint, on_delete=models.PROTECT, related_name="runs")
    condition = models.ForeignKey(Condition, on_delete=models.PROTECT, related_name="runs")
    settings_snapshot = models.JSONField(default=dict, blank=True)
    response = models.OneToOneField(
        "studies.Response", null=True, blank=True, on_delete=models.SET_NULL, related_name="generation_run"
    )

    class Meta:
        ordering = ["id"]
        verbose_name = _("generation run")

    def __str__(self) -> str:
        return f"Run {self.pk}: {self.condition.letter}{self.endpoint.model_number}_{self.scenario.code}"


class Turn(models.Model):
    """One provider call, persisted as soon as it completes. ``seq`` is the call's
    position in the strategy's protocol, so a resumed run never repeats it."""

    run = models.ForeignKey(GenerationRun, on_delete=models.CASCADE, related_name="turns")
    seq = models.PositiveIntegerField()
    step = models.PositiveSmallIntegerField(help_text=_("0 = warm-up"))
    phase = models.CharField(max_length=40)
    role = models.CharField(max_length=80)
    messages = models.JSONField(help_text=_("The exact messages sent."))
    request_params = models.JSONField(default=dict, blank=True)
    reply = models.TextField(blank=True)
    reasoning = models.TextField(blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    latency_ms = models.PositiveIntegerField(default=0)
    attempts = models.PositiveSmallIntegerField(default=1)
    # time waited before the answer (pacing, retry backoff) and attempts answered HTTP 429
    wait_ms = models.PositiveIntegerField(default=0)
    rate_limited = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "seq"]
        constraints = [models.UniqueConstraint(fields=["run", "seq"], name="turn_unique_per_run_seq")]
        verbose_name = _("turn")

    def __str__(self) -> str:
        return f"{self.run_id}#{self.seq} {self.role} ({self.phase})"
